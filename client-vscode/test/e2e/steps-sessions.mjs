// e2e steps for issue 10: the demo model's approval + diff flow, chat history, the
// model picker (checked at the API endpoint), and a bad python path.
//   15 demo model: "run ls -la" → a modal with only Approve/Always (+ VS Code's Cancel) → the output
//   16 demo model: "edit README.md" → the diff editor + a notification beside it (not a modal) → approved
//   17 New Chat → Show Chat History lists the old conversation → resuming it shows its transcript
//   18 the model picker: choosing claude-haiku-4-5 makes the next request use it, as recorded
//      by a scripted mock API (editor_mock_api.py) at the endpoint
//   19 agentls.pythonPath = /nonexistent/bin/python → the error names that path
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { recordedBodies, startScriptedApi } from "./scriptedApi.mjs";
const BAD_PYTHON = "/nonexistent/bin/python";

function writeSettings(workspace, settings) {
  mkdirSync(path.join(workspace, ".vscode"), { recursive: true });
  writeFileSync(path.join(workspace, ".vscode", "settings.json"), JSON.stringify({ "agentls.contextWindow": 40000, ...settings }, null, 2));
}

const recordedModels = (record) => recordedBodies(record).map((body) => body.model);

export async function sessionSteps({ page, chat, workspace, python, tmp, log, fail, shot, palette, waitFor }) {
  const modelName = async () => ((await chat.locator(".model").textContent()) ?? "").trim();
  const send = async (prompt) => {
    const before = await chat.locator(".msg.assistant.done").count();
    await chat.locator("#input").fill(prompt);
    await chat.locator("#input").press("Enter");
    return () => waitFor(async () => (await chat.locator(".msg.assistant.done").count()) > before, 60_000, `the reply to "${prompt}"`);
  };

  // back to the offline demo model (no key, no base URL)
  writeFileSync(path.join(workspace, "README.md"), "# Demo workspace\n\nThis line will be edited.\n");
  writeSettings(workspace, {});
  await waitFor(async () => (await modelName()) === "demo model (offline)", 30_000, "the demo model to answer again");
  log(`header names the model that answers: "${await modelName()}"`);

  // 15: run a command: one modal, its only negative choice is VS Code's own Cancel
  const ran = await send("run ls -la");
  const dialog = page.locator(".monaco-dialog-box");
  await dialog.waitFor({ timeout: 60_000 });
  const text = (await dialog.innerText()) ?? "";
  if (!/ls -la/.test(text)) fail(`the approval modal does not show the command: ${text}`);
  const buttons = (await dialog.locator("a.monaco-button, button").allInnerTexts()).map((b) => b.trim()).filter(Boolean);
  log(`shell approval modal buttons: ${JSON.stringify(buttons)}`);
  if (buttons.includes("Reject")) fail(`the modal has Reject besides Cancel: ${buttons}`);
  await shot(page, "15-demo-approve-shell");
  await dialog.locator("a.monaco-button, button", { hasText: /^Approve$/ }).first().click();
  await ran();
  const card = (await chat.locator(".tool-card", { hasText: "run_shell" }).last().textContent()) ?? "";
  const reply = (await chat.locator(".msg.assistant").last().textContent()) ?? "";
  if (!/README\.md|hello\.py/.test(reply + card)) fail(`the command's output is not shown: ${reply.slice(0, 300)}`);
  log("demo model: run ls -la → modal → approved → output shown");

  // 16: edit a file: the diff stays visible, the question is a notification beside it
  const edited = await send("edit README.md");
  const diff = page.locator(".monaco-diff-editor").first();
  await diff.waitFor({ timeout: 60_000 });
  const toast = page.locator(".notification-toast", { hasText: /wants to edit README\.md/ }).first();
  await toast.waitFor({ timeout: 30_000 });
  if (await dialog.isVisible()) fail("a modal covers the diff of the edit");
  await page.waitForTimeout(500);
  await shot(page, "16-demo-approve-edit-diff");
  await toast.locator("a.monaco-button, button", { hasText: /^Approve$/ }).first().click();
  await edited();
  await waitFor(async () => readFileSync(path.join(workspace, "README.md"), "utf8") !== "# Demo workspace\n\nThis line will be edited.\n" || undefined, 30_000, "README.md to change on disk");
  log("demo model: edit README.md → diff + notification (no modal) → approved → file changed");

  // 17: New Chat → history lists the old conversation → resume shows its transcript
  const oldTitle = ((await chat.locator(".msg.user .md").first().textContent()) ?? "").trim(); // the title: its first prompt
  await palette(page, "Agent: New Chat");
  await waitFor(async () => (await chat.locator(".msg.user").count()) === 0, 15_000, "an empty transcript after New Chat");
  await (await send("hello from the second chat"))();
  await palette(page, "Agent: Show Chat History");
  await page.locator(".quick-input-widget .quick-input-title", { hasText: "Chat History" }).waitFor({ timeout: 15_000 });
  const rows = page.locator(".quick-input-widget .monaco-list-row");
  await waitFor(async () => (await rows.count()) >= 2 && /second chat/.test(await rows.first().innerText()), 15_000, "two conversations in the history");
  const listed = (await rows.allInnerTexts()).map((r) => r.replace(/\s+/g, " ").slice(0, 90));
  log(`history: ${JSON.stringify(listed)}`);
  if (!/hello from the second chat/.test(listed[0])) fail(`the new chat is not listed first: ${listed[0]}`);
  if (!listed[1].startsWith(oldTitle)) fail(`the old conversation "${oldTitle}" is not listed next: ${listed[1]}`);
  await shot(page, "17-history");
  await rows.nth(1).click();
  await waitFor(async () => (await chat.locator(".msg.user", { hasText: "edit README.md" }).count()) > 0, 30_000, "the resumed transcript");
  if ((await chat.locator(".msg.user", { hasText: "hello from the second chat" }).count()) !== 0) fail("the resumed transcript shows the other chat");
  await shot(page, "17b-resumed");
  log(`resumed the old conversation: ${await chat.locator(".msg").count()} messages shown`);

  // 18: the model picker changes the model of the next request (seen at the endpoint)
  const api = startScriptedApi(python, tmp, "picker", [{ content: "Answered by the model you picked." }, { content: "Again." }]);
  try {
    writeSettings(workspace, { "agentls.baseUrl": await api.url });
    await waitFor(async () => (await modelName()) === "claude-sonnet-5-5", 30_000, "the configured model to replace the demo model");
    const picker = chat.locator(".model-select");
    await picker.waitFor({ state: "visible", timeout: 15_000 });
    await picker.selectOption("claude-haiku-4-5");
    await waitFor(async () => (await modelName()) === "claude-haiku-4-5", 30_000, "the header to name claude-haiku-4-5");
    await (await send("which model are you?"))();
    const models = await waitFor(async () => recordedModels(api.record).length && recordedModels(api.record), 10_000, "a recorded request");
    log(`models at the API endpoint: ${JSON.stringify(models)}`);
    if (models.at(-1) !== "claude-haiku-4-5") fail(`the next request used ${models.at(-1)}, not claude-haiku-4-5`);
    await shot(page, "18-model-picker");
  } finally {
    api.child.kill("SIGTERM");
  }

  // 19: a bad interpreter path: the error names it
  writeSettings(workspace, { "agentls.pythonPath": BAD_PYTHON });
  const restart = page.locator(".notification-toast", { hasText: "Python interpreter setting changed" }).first();
  await restart.waitFor({ timeout: 30_000 });
  await restart.locator("a.monaco-button, button", { hasText: "Restart Server" }).first().click();
  const named = page.locator(".notification-toast", { hasText: BAD_PYTHON }).first();
  await waitFor(async () => (await named.isVisible()) || ((await chat.locator(".server").textContent()) ?? "").includes(BAD_PYTHON), 60_000, `an error naming ${BAD_PYTHON}`);
  await page.waitForTimeout(500);
  await shot(page, "19-bad-python-path");
  log(`bad python path: the error names ${BAD_PYTHON}`);
}
