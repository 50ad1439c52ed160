/**
 * Issue 29 item 6 in real Chromium: the panel's /cost notice carries data-testid "agent-cost" and shows
 * each miss's reason; a thinkingDropped event is a warning in its turn.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import type { Page } from "playwright-core";
import type { CostResult } from "../../src/protocol";
import { COST_TEST_ID, cacheCostMarkdown } from "../../src/shared/cacheReport";
import { costMarkdown } from "../../src/shared/format";
import { host, root, usePage } from "./harness";

let page: Page;
usePage((p) => (page = p));

const miss = { kind: "tools_changed", text: "tool list changed", missedTokens: 21_000 };
const cost: CostResult = {
  model: "claude-x", requests: 2, inputTokens: 1800, outputTokens: 40, cacheReadTokens: 20_000, cacheWriteTokens: 22_000,
  cacheWrite1hTokens: 0, cacheTtl: "5m", usd: 0.12, unpricedModels: [],
  cache: {
    requests: [
      { number: 1, model: "claude-x", inputTokens: 900, cacheReadTokens: 20_000, cacheWriteTokens: 1000, miss: null, thinkingDropped: 0, serverEdits: 0 },
      { number: 2, model: "claude-x", inputTokens: 900, cacheReadTokens: 0, cacheWriteTokens: 21_000, miss, thinkingDropped: 0, serverEdits: 0 },
    ],
    totalRequests: 2,
    misses: [{ ...miss, count: 1, missedTokens: 21_000 }],
    recentMisses: [],
    thinkingDropped: [],
    thinkingLetThrough: 0,
    serverEdits: 0,
  },
};

test("the cost view is found by its test id and names the miss's reason", async () => {
  await page.setViewportSize({ width: 520, height: 700 });
  await host(page, { type: "notice", markdown: costMarkdown(cost) + cacheCostMarkdown(cost.cache), level: "info", testId: COST_TEST_ID });
  const view = page.locator(`[data-testid="${COST_TEST_ID}"]`);
  assert.equal(await view.count(), 1);
  assert.match((await view.locator("tr", { hasText: "tool list changed" }).first().textContent()) ?? "", /21K tokens not read from cache/);
  assert.match((await view.textContent()) ?? "", /Prompt cache misses: 1 of 2 requests/);
  const shots = path.resolve(root, "..", "test-output", "webview");
  mkdirSync(shots, { recursive: true });
  await view.screenshot({ path: path.join(shots, "cost-cache-misses.png") });
});

test("a thinkingDropped event is a warning in its turn", async () => {
  const text = "The API refused a thinking block (messages.1.content.0, the reply that called read_file): messages.0 changed. Sent again with drop_block; the model's earlier reasoning from there on is dropped.";
  await host(page, { type: "userMessage", text: "go on", attachments: [] }, { type: "turnStarted" },
    { type: "event", event: { turnId: "t9", kind: "thinkingDropped", text, path: "messages.1.content.0", toolUseIds: ["tu_1"], retried: true, blocks: 0 } });
  const note = page.locator(".msg.assistant .warn", { hasText: "The API refused a thinking block" });
  await note.first().waitFor({ timeout: 5000 });
  assert.match((await note.first().textContent()) ?? "", /the reply that called read_file/);
});
