// MCP steps of the code-server e2e (issue 12): the SDK-written test server configured through
// `agentls.mcpServers` (workspace settings, no restart), listed by the quick pick and by `/mcp`.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";

const SECRET = "e2e-mcp-env-secret-4471";

export async function mcpSteps({ page, chat, workspace, python, repo, shot, palette, waitFor, statusText, log, fail }) {
  const file = path.join(workspace, ".vscode", "settings.json");
  mkdirSync(path.dirname(file), { recursive: true });
  const settings = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {};
  settings["agentls.mcpServers"] = {
    test: { command: python, args: [path.join(repo, "tests", "mcp_test_server.py"), "stdio"], env: { TOKEN: SECRET }, tools: { crash: "never" } },
  };
  settings["agentls.contextWindow"] = 50000; // a visible sign that these settings reached the server
  writeFileSync(file, JSON.stringify(settings, null, 2));
  // the meter shows the usable window (the 50K window less the output reserve); 40K before
  await waitFor(async () => /\/(4[5-9]|50)K/.test(await statusText(page)), 60_000, "the status bar to show the new 50K window");

  // 20: Agent: Show MCP Servers — the server is started (lazily, now) and its tools listed in a quick pick
  await palette(page, "Agent: Show MCP Servers");
  const rows = page.locator(".quick-input-widget .monaco-list-row");
  await rows.filter({ hasText: "running" }).first().waitFor({ timeout: 120_000 });
  const listed = await page.locator(".quick-input-widget").innerText();
  if (!/echo/.test(listed) || !/mcp__test__echo/.test(listed)) fail(`quick pick lacks the tools: ${listed.slice(0, 300)}`);
  if (listed.includes(SECRET)) fail("the quick pick shows an env value");
  await shot(page, "20-mcp-quick-pick");
  await page.keyboard.press("Escape");
  log("MCP: quick pick lists the running server and its tools");

  // 21: /mcp in the chat panel
  await chat.locator("#input").fill("/mcp");
  await chat.locator("#input").press("Enter");
  const notice = chat.locator(".msg.notice", { hasText: "mcp__test__echo" }).last();
  await notice.waitFor({ timeout: 60_000 });
  const text = (await notice.innerText()) ?? "";
  if (!/running/.test(text) || !/env TOKEN: hidden/.test(text) || text.includes(SECRET)) fail(`/mcp notice: ${text.slice(0, 300)}`);
  await shot(page, "21-mcp-in-chat");
  log("MCP: /mcp lists the server, its state and tools (env value hidden)");
}
