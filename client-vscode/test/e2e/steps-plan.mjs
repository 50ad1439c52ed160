// e2e steps for issue 34: plan mode in the panel, from the offline demo model.
//   40 the header's Plan toggle → plan mode (pressed, Approve plan shown); "run ls -la" → the shell call is
//      refused without an approval card, its card says plan mode is on
//   41 Approve plan → acting again (toggle released, Approve plan hidden) and a turn that acts on the plan
export async function planSteps({ page, chat, shot, waitFor, log, fail }) {
  const toggle = chat.locator("#plan-toggle");
  const approve = chat.locator("#approve-plan");
  const done = () => chat.locator(".msg.assistant.done").count();

  // 40: plan mode refuses the shell call, unasked
  await toggle.click();
  await waitFor(async () => (await toggle.getAttribute("aria-pressed")) === "true", 30_000, "the Plan toggle to be pressed");
  if (!(await approve.isVisible())) fail("Approve plan is not shown in plan mode");
  const before = await done();
  await chat.locator("#input").fill("run ls -la");
  await chat.locator("#input").press("Enter");
  await waitFor(async () => (await done()) > before, 60_000, 'the reply to "run ls -la" in plan mode');
  if (await chat.locator(".approval").count()) fail("plan mode asked for approval instead of refusing");
  const card = chat.locator(".tool-card").last();
  await card.click();
  const shown = await waitFor(async () => {
    const text = (await card.innerText()) ?? "";
    return /plan mode/i.test(text) ? text : undefined;
  }, 30_000, "the refused card to say plan mode is on");
  await shot(page, "40-plan-mode-refused");
  log(`plan mode: run_shell refused unasked (${shown.split("\n")[0]})`);

  // 41: Approve plan → acting, and the turn that carries the plan out
  const before2 = await done();
  await approve.click();
  await waitFor(async () => (await toggle.getAttribute("aria-pressed")) === "false", 30_000, "the Plan toggle to be released");
  await waitFor(async () => (await done()) > before2, 60_000, "the turn after Approve plan");
  if (await approve.isVisible()) fail("Approve plan still shown after approving");
  const sent = (await chat.locator(".msg.user").last().innerText()) ?? "";
  if (!/plan is approved/.test(sent)) fail(`Approve plan sent ${sent}`);
  await shot(page, "41-plan-approved");
  log("Approve plan: acting again, and the approval prompt was sent");
}
