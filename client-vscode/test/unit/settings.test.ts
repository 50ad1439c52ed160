import assert from "node:assert/strict";
import { test } from "node:test";
import { toAgentSettings } from "../../src/shared/settings";

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
