// e2e steps for issue 20: checkpoints and rewind in VS Code, with the offline demo model.
//   22 a shell command (approved) changes one file and creates another → Restore ▸ code on
//      that message → each file in the diff editor (now ↔ after the restore) and a quick pick (no modal) naming both files → Restore → both
//      files are back on disk, the turn's tool card is greyed, the conversation stays
//   23 Restore ▸ code and conversation on the same message → the message and its reply
//      leave the transcript (the files were already restored)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

export async function checkpointSteps({ page, chat, workspace, log, fail, shot, waitFor }) {
  // back to the offline demo model (the MCP steps pointed the settings at a scripted API, now gone)
  mkdirSync(path.join(workspace, ".vscode"), { recursive: true });
  writeFileSync(path.join(workspace, ".vscode", "settings.json"), JSON.stringify({ "agentls.contextWindow": 40000 }, null, 2));
  const modelName = async () => ((await chat.locator(".model").textContent()) ?? "").trim();
  await waitFor(async () => (await modelName()) === "demo model (offline)", 30_000, "the demo model to answer again");
  const target = path.join(workspace, "checkpoint.txt");
  const made = path.join(workspace, "made-by-shell.txt");
  writeFileSync(target, "before the agent\n");
  const prompt = "run `echo changed by the shell > checkpoint.txt && echo new > made-by-shell.txt`";
  const before = await chat.locator(".msg.assistant.done").count();
  await chat.locator("#input").fill(prompt);
  await chat.locator("#input").press("Enter");
  const approval = chat.locator(".approval", { hasText: "made-by-shell.txt" }).first(); // asked inside the panel
  await approval.waitFor({ timeout: 60_000 });
  await approval.locator('button[data-choice="approve"]').click();
  const dialog = page.locator(".monaco-dialog-box"); // no modal may cover the restore preview
  await waitFor(async () => (await chat.locator(".msg.assistant.done").count()) > before, 60_000, "the reply to the shell command");
  await waitFor(async () => existsSync(made) && readFileSync(target, "utf8") === "changed by the shell\n", 30_000, "the shell's changes on disk");
  log("a shell command changed checkpoint.txt and created made-by-shell.txt");

  // 22: Restore ▸ code, with its diff preview
  const message = chat.locator(".msg.user", { hasText: "made-by-shell.txt" }).last();
  await message.locator(".restore-toggle").waitFor({ timeout: 30_000 });
  await message.locator(".restore-toggle").click();
  await message.locator(".restore-menu button", { hasText: /^Restore code$/ }).click();
  // the question beside the diff editors, not a modal over them: a quick pick whose first item restores
  const ask = page.locator(".quick-input-widget", { hasText: "Restore the files to before" });
  await ask.waitFor({ state: "visible", timeout: 30_000 });
  const question = (await ask.innerText()) ?? "";
  if (!/checkpoint\.txt/.test(question) || !/made-by-shell\.txt/.test(question)) fail(`the restore question does not name both files: ${question}`);
  if ((await dialog.count()) && (await dialog.isVisible())) fail("a modal covers the restore preview");
  // each file in VS Code's diff editor, its text now beside its text after the restore (issue 33)
  for (const file of ["checkpoint.txt", "made-by-shell.txt"]) {
    await page.locator(".tab", { hasText: `${file}: now ↔ after the restore` }).first().waitFor({ timeout: 30_000 });
  }
  const active = ((await page.locator(".tab.active").first().textContent()) ?? "").trim();
  const sides = async (side) => ((await page.locator(`.monaco-diff-editor .editor.${side} .view-lines`).first().innerText()) ?? "").replace(/\u00a0/g, " ");
  const [now, after] = [await sides("original"), await sides("modified")];
  const expected = active.startsWith("checkpoint.txt") ? /changed by the shell/.test(now) && /before the agent/.test(after) : /new/.test(now) && !after.trim();
  if (!expected) fail(`the diff editor of "${active}" does not show the file now beside it restored: ${JSON.stringify([now, after])}`);
  log(`restore preview: the diff editor "${active}": ${JSON.stringify(now.trim())} → ${JSON.stringify(after.trim())}`);
  await shot(page, "22-restore-preview");
  await page.keyboard.press("Enter"); // Restore: nothing of the user's at stake, and it can be undone
  await waitFor(async () => !existsSync(made) && readFileSync(target, "utf8") === "before the agent\n", 30_000, "the files restored on disk");
  await chat.locator(".msg.assistant.rewound .tool-card", { hasText: "run_shell" }).first().waitFor({ timeout: 30_000 });
  if ((await chat.locator(".msg.user", { hasText: "made-by-shell.txt" }).count()) === 0) fail("restoring code removed the message");
  await chat.locator(".msg.notice", { hasText: /Restored/ }).last().waitFor({ timeout: 30_000 });
  await shot(page, "22b-restored-code");
  log("Restore ▸ code: diff editors + the question beside them → files back on disk, the turn's tool card greyed, conversation kept");

  // 23: Restore ▸ code and conversation: the message leaves the transcript
  const users = await chat.locator(".msg.user").count();
  await message.locator(".restore-toggle").click();
  await message.locator(".restore-menu button", { hasText: /^Restore code and conversation$/ }).click();
  const askBoth = page.locator(".quick-input-widget", { hasText: "Restore the files and the conversation" });
  await askBoth.waitFor({ state: "visible", timeout: 30_000 });
  await page.keyboard.press("Enter");
  await waitFor(async () => (await chat.locator(".msg.user", { hasText: "made-by-shell.txt" }).count()) === 0, 30_000, "the message to leave the transcript");
  const left = await chat.locator(".msg.user").count();
  if (left !== users - 1) fail(`expected ${users - 1} user messages after the restore, found ${left}`);
  if (readFileSync(target, "utf8") !== "before the agent\n" || existsSync(made)) fail("the files changed again");
  await shot(page, "23-restored-conversation");
  log(`Restore ▸ code and conversation: the message and its reply left the transcript (${users} → ${left} user messages)`);
}
