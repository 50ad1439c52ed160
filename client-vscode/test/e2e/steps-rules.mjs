// e2e steps for issue 21: "Always" in an approval creates a permission rule the user can see and remove.
//   30 demo model: "run ls -la" → the modal says what "Always" allows → Always → a notification names the rule,
//      and it is in the workspace's .vscode/settings.json (agentls.permissions.allow)
//   31 /permissions in the panel lists it; the same command runs again without a dialog
//   32 the rule removed from the settings → the next run asks again
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const RULE = "run_shell(ls -la)";

export async function ruleSteps({ page, chat, workspace, shot, waitFor, log, fail }) {
  const file = path.join(workspace, ".vscode", "settings.json");
  const settings = () => JSON.parse(readFileSync(file, "utf8"));
  const dialog = page.locator(".monaco-dialog-box");
  const send = async (prompt) => {
    const before = await chat.locator(".msg.assistant.done").count();
    await chat.locator("#input").fill(prompt);
    await chat.locator("#input").press("Enter");
    return () => waitFor(async () => (await chat.locator(".msg.assistant.done").count()) > before, 60_000, `the reply to "${prompt}"`);
  };

  // back to the offline demo model (the editor steps pointed the client at a scripted endpoint)
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ "agentls.contextWindow": 40000 }, null, 2));
  const modelName = async () => ((await chat.locator(".model").textContent()) ?? "").trim();
  await waitFor(async () => (await modelName()) === "demo model (offline)", 60_000, "the demo model to answer again");

  // 30: Always → a visible rule
  const first = await send("run ls -la");
  await dialog.waitFor({ timeout: 60_000 });
  const asked = (await dialog.innerText()) ?? "";
  if (!asked.includes(`"Always" allows from now on: ${RULE}`)) fail(`the modal does not say what Always allows: ${asked}`);
  await dialog.locator("a.monaco-button, button", { hasText: /^Always$/ }).first().click();
  await first();
  const toast = page.locator(".notification-toast", { hasText: "allowed from now on" }).first();
  await toast.waitFor({ timeout: 30_000 });
  const told = (await toast.innerText()) ?? "";
  if (!told.includes(RULE) || !told.includes("agentls.permissions")) fail(`the notification does not name the rule: ${told}`);
  const kept = await waitFor(() => settings()["agentls.permissions"]?.allow, 30_000, "agentls.permissions in .vscode/settings.json");
  if (!kept.includes(RULE)) fail(`.vscode/settings.json holds ${JSON.stringify(kept)}, not ${RULE}`);
  await page.waitForTimeout(500);
  await shot(page, "30-always-wrote-a-rule");
  log(`Always: ${RULE} written to agentls.permissions.allow in .vscode/settings.json and announced`);

  // 31: listed by /permissions, and the same command runs without a dialog
  await chat.locator("#input").fill("/permissions");
  await chat.locator("#input").press("Enter");
  const listed = chat.locator(".msg.notice", { hasText: "Permission rules" }).last();
  await listed.waitFor({ timeout: 30_000 });
  const rows = (await listed.innerText()) ?? "";
  if (!rows.includes(RULE) || !/settings/.test(rows)) fail(`/permissions does not list the rule: ${rows}`);
  const again = await send("run ls -la");
  await again();
  if (await dialog.isVisible()) fail("the allowed command asked again");
  await shot(page, "31-permissions-listed-and-ran-unasked");
  log("/permissions lists the rule; the same command ran without a dialog");

  // 32: removed from the settings → asked again (Cancel refuses)
  const without = settings();
  delete without["agentls.permissions"];
  writeFileSync(file, JSON.stringify(without, null, 2));
  let dropped = false;
  for (let i = 0; i < 15 && !dropped; i++) { // the settings change reaches the server (didChangeConfiguration)
    await page.waitForTimeout(2000);
    await chat.locator("#input").fill("/permissions");
    await chat.locator("#input").press("Enter");
    await page.waitForTimeout(500);
    dropped = /No permission rules yet/.test((await chat.locator(".msg.notice").last().innerText()) ?? "");
  }
  if (!dropped) fail("the server still lists the removed rule after 30 s");
  const third = await send("run ls -la");
  await dialog.waitFor({ timeout: 60_000 });
  await page.keyboard.press("Escape"); // VS Code's Cancel: refused
  await third();
  log("the rule removed from the settings: the command asks again");
}
