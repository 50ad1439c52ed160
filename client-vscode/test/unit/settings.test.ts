import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { CLIENT_ONLY, SERVER_KEYS, toAgentSettings } from "../../src/shared/settings";

test("drops pythonPath, empty strings and nulls; keeps nested thresholds and approvals", () => {
  const s = toAgentSettings({
    pythonPath: "/x/python",
    model: "",
    baseUrl: " http://localhost:8080 ",
    contextWindow: null,
    maxTokens: 4096,
    thresholds: { warn: 0.6, high: 0.85, budgetSoft: null },
    approvals: { shell: "ask", write: "always" },
    unknownKey: 1,
  });
  assert.deepEqual(s, {
    baseUrl: "http://localhost:8080",
    maxTokens: 4096,
    thresholds: { warn: 0.6, high: 0.85 },
    approvals: { shell: "ask", write: "always" },
  });
  assert.deepEqual(toAgentSettings(undefined), {});
});

test("passes mcpServers through in the mcp.json shape", () => {
  const servers = {
    git: { command: "uvx", args: ["mcp-server-git", "--repository", "."], env: { TOKEN: "t0k" }, tools: { git_reset: "never" } },
    docs: { url: "http://127.0.0.1:8000/mcp", headers: { Authorization: "Bearer x" }, approval: "always", timeout: 30 },
  };
  assert.deepEqual(toAgentSettings({ mcpServers: servers }), { mcpServers: servers });
  assert.deepEqual(toAgentSettings({ mcpServers: {} }), {});
});

test("every contributed setting is sent to the server or read by the extension alone", () => {
  // out/test/unit → client-vscode; the bounds and defaults are checked against the server's by
  // tests/unit/test_settings_schema.py
  const manifest = JSON.parse(readFileSync(path.resolve(__dirname, "../../../package.json"), "utf8"));
  const keys = new Set(Object.keys(manifest.contributes.configuration.properties).map((k) => k.split(".")[1]));
  assert.deepEqual([...keys].sort(), [...SERVER_KEYS, ...CLIENT_ONLY].sort());
  const all = Object.fromEntries([...keys].map((k) => [k, k === "thresholds" ? { warn: 0.5 } : "x"]));
  assert.deepEqual(Object.keys(toAgentSettings(all)).sort(), [...SERVER_KEYS].sort());
});
