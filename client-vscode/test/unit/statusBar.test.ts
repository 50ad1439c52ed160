import assert from "node:assert/strict";
import { test } from "node:test";
import type { ContextUsage } from "../../src/protocol";
import { StatusBar } from "../../src/statusBar";
import { __fake, type ThemeColor } from "./fake-vscode";

const u = (level: ContextUsage["level"], utilization: number): ContextUsage => ({
  model: "claude-sonnet-5-5",
  demo: false,
  modelWindow: 1_000_000,
  used: Math.round(utilization * 180_000),
  window: 200_000,
  effectiveWindow: 180_000,
  utilization,
  level,
  categories: { system: 1, tools: 2, instructions: 0, user: 3, assistant: 4, toolResults: 5 },
  layers: [{ layer: "budget", count: 3, tokensSaved: 9000 }],
  nextRequest: "none",
  autoCompactAt: 0.85,
});

test("shows 'starting' at once, then usage with level colours", () => {
  __fake.reset();
  const sb = new StatusBar();
  const item = __fake.statusItems[0];
  assert.equal(item.visible, true);
  assert.match(item.text, /starting/);
  sb.setStatus({ phase: "running" });
  assert.equal(item.text, "$(pulse) Agent");
  sb.setUsage(u("ok", 0.42));
  assert.equal(item.text, "$(pulse) 42% · 75.6K/180K");
  assert.equal(item.backgroundColor, undefined);
  assert.equal(item.command, "agentls.showContext");
  assert.match(item.tooltip.value, /L1 budget/);
  assert.match(item.tooltip.value, /Working window 200K of the model's 1M maximum/);
  assert.deepEqual(item.tooltip.isTrusted, { enabledCommands: ["agentls.useModelWindow"] }); // only that link runs
  sb.setUsage(u("warn", 0.65));
  assert.equal((item.backgroundColor as unknown as ThemeColor).id, "statusBarItem.warningBackground");
  sb.setUsage(u("high", 0.9));
  assert.equal((item.backgroundColor as unknown as ThemeColor).id, "statusBarItem.errorBackground");
});

test("error state offers a restart", () => {
  __fake.reset();
  const sb = new StatusBar();
  const item = __fake.statusItems[0];
  sb.setStatus({ phase: "error", message: "no python" });
  assert.match(item.text, /error/);
  assert.equal(item.tooltip, "no python");
  assert.equal(item.command, "agentls.restartServer");
  assert.equal((item.backgroundColor as unknown as ThemeColor).id, "statusBarItem.errorBackground");
});

test("the tooltip names each subagent's tokens and their sum", () => {
  __fake.reset();
  const sb = new StatusBar();
  const item = __fake.statusItems[0];
  sb.setStatus({ phase: "running" });
  sb.setUsage(u("ok", 0.42));
  assert.doesNotMatch(item.tooltip.value, /Subagents/);
  const child = { model: "m", requests: 2, inputTokens: 3000, outputTokens: 200, cacheReadTokens: 0, cacheWriteTokens: 0, usd: 0.01 };
  sb.setSubagents([{ toolUseId: "a", name: "find callers", ...child }, { toolUseId: "b", name: "read notes", ...child }]);
  assert.equal(sb.hasSubagents, true);
  assert.match(item.tooltip.value, /\| find callers \| 2 \| 3.2K \| \$0\.01 \|/);
  assert.match(item.tooltip.value, /\| \*\*Sum\*\* \| 4 \| 6.4K \| \$0\.02 \|/);
});
