/**
 * Issue 29 item 6: the panel's /cost and Show Context lay out the server's cache report (every figure
 * and every reason's words come from the server); the e2e finds the reasons by their data-testid.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { CacheReport, RequestCache } from "../../src/protocol";
import { cacheContextMarkdown, cacheCostMarkdown } from "../../src/shared/cacheReport";

const request = (number: number, miss: RequestCache["miss"], thinkingDropped = 0): RequestCache => ({
  number, model: "claude-x", inputTokens: 900, cacheReadTokens: miss ? 0 : 40_000, cacheWriteTokens: miss ? 38_000 : 1200, miss, thinkingDropped, serverEdits: 0,
});
const systemMiss = { kind: "system_changed", text: "system prompt changed", missedTokens: 38_000 };
const messagesMiss = { kind: "messages_changed", text: "earlier messages changed at messages.12", missedTokens: null };
const report: CacheReport = {
  requests: [request(1, null), request(2, systemMiss), request(3, messagesMiss, 2)],
  totalRequests: 60,
  misses: [
    { kind: "system_changed", text: "system prompt changed", count: 1, missedTokens: 38_000 },
    { kind: "messages_changed", text: "earlier messages changed", count: 1, missedTokens: 0 },
  ],
  recentMisses: [request(2, systemMiss), request(3, messagesMiss, 2)],
  thinkingDropped: [{ reason: "prefix_binding_mismatch", text: "the conversation before it changed", count: 2 }],
  thinkingLetThrough: 0,
  serverEdits: 3,
};

test("/cost lists the misses by reason and each request's reads, writes and reason", () => {
  const md = cacheCostMarkdown(report);
  assert.match(md, /\*\*Prompt cache misses: 2 of 60 requests\*\*/);
  assert.match(md, /\| system prompt changed \| 1 \| 38K tokens not read from cache \|/);
  assert.match(md, /\| earlier messages changed \| 1 \| {2}\|/);
  assert.match(md, /\| # \| Read \| Written \| Why it missed \|/);
  assert.match(md, /\| 2 \| 0 \| 38K \| system prompt changed \(38K tokens not read from cache\) \|/);
  assert.match(md, /\| 3 \| 0 \| 38K \| earlier messages changed at messages\\\.12; 2 thinking dropped \|/);
  const twoModels = cacheCostMarkdown({ ...report, requests: [...report.requests, { ...request(4, null), model: "claude-y" }] });
  assert.match(twoModels, /\| 4 \| claude\\-y \| 40K \| 1\.2K \| {2}\|/);
  assert.ok(md.includes("Thinking dropped by the API: 2 blocks \\(the conversation before it changed ×2\\)"));
  assert.match(md, /_The last 3 requests of 60\._/);
  assert.equal(cacheCostMarkdown(undefined), "");
});

test("Show Context names the last misses and the dropped thinking, with test ids", () => {
  const md = cacheContextMarkdown(report);
  assert.match(md, /^## Cache\n/);
  assert.match(md, /- request 2 \(claude\\-x\): <span data-testid="cache-miss-reason" data-kind="system_changed">system prompt changed<\/span> — 38K tokens not read from cache/);
  assert.match(md, /<span data-testid="cache-miss-reason" data-kind="messages_changed">earlier messages changed at messages.12<\/span>\n/);
  assert.match(md, /Thinking dropped by the API: <span data-testid="thinking-dropped">2 blocks \(the conversation before it changed ×2\)<\/span>/);
  assert.match(md, /Server-side context edits applied: 3/);
  assert.match(cacheContextMarkdown(undefined), /<span data-testid="cache-nothing">Nothing to report<\/span>/);
  const hostile = cacheContextMarkdown({ ...report, recentMisses: [request(4, { kind: "x\"><b>", text: "<img src=x>", missedTokens: null })] });
  assert.match(hostile, /data-kind="x&quot;&gt;&lt;b&gt;">&lt;img src=x&gt;<\/span>/); // raw HTML in the preview: escaped
});
