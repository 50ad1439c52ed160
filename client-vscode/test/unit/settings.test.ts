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
