import assert from "node:assert/strict";
import { test } from "node:test";
import type { ContextResult, ContextUsage, CostResult } from "../../src/protocol";
import {
  categoriesTable,
  compactWarning,
  compactMarkdown,
  contextMarkdown,
  costLine,
  costMarkdown,
  formatChars,
  formatSeconds,
  formatTokens,
  formatUsage,
  formatUsd,
  phaseText,
  statusBackground,
  statusText,
  statusTooltip,
} from "../../src/shared/format";
import { applyMessage, emptyTranscript } from "../../src/shared/transcript";

const usage: ContextUsage = {
  model: "claude-sonnet-5-5",
  demo: false,
  modelWindow: 1_000_000,
  used: 75_600,
  window: 200_000,
  effectiveWindow: 180_000,
  utilization: 0.42,
  level: "ok",
  nextRequest: "none",
  autoCompactAt: 0.85,
  categories: { system: 3000, tools: 5000, instructions: 0, user: 20000, assistant: 16000, toolResults: 40000 },
  layers: [
    { layer: "truncate", count: 2, tokensSaved: 12000 },
    { layer: "snip", count: 0, tokensSaved: 0 },
  ],
};

test("formatTokens", () => {
  assert.equal(formatTokens(0), "0");
  assert.equal(formatTokens(950), "950");
  assert.equal(formatTokens(1500), "1.5K");
  assert.equal(formatTokens(2000), "2K");
  assert.equal(formatTokens(84_123), "84K");
  assert.equal(formatTokens(200_000), "200K");
  assert.equal(formatTokens(1_250_000), "1.3M");
  assert.equal(formatTokens(2_000_000), "2M");
});

test("status bar text matches the documented example", () => {
  assert.equal(statusText(usage), "$(pulse) 42% · 75.6K/180K");
  assert.equal(statusText({ used: 0, window: 200_000, effectiveWindow: 180_000, utilization: 0 }), "$(pulse) 0% · 0/180K");
});

// Issue 9, point 1: `106% · 29K/30K` put the percentage over the usable window
// and the fraction over the raw window.
test("the percentage equals the fraction beside it, within one point, at every size", () => {
  for (const [window, reserve] of [[30_000, 2_000], [40_000, 4_000], [200_000, 20_000], [1_000_000, 32_000]]) {
    const effectiveWindow = window - reserve;
    for (let used = 0; used <= effectiveWindow * 1.2; used += Math.max(1, Math.floor(effectiveWindow / 97))) {
      const text = statusText({ used, window, effectiveWindow, utilization: Math.round((used / effectiveWindow) * 10_000) / 10_000 });
      const m = /(\d+)% · ([\d.]+)(K|M)?\/([\d.]+)(K|M)?/.exec(text);
      assert.ok(m, text);
      const scale = (unit: string | undefined) => (unit === "K" ? 1e3 : unit === "M" ? 1e6 : 1);
      const shown = (parseFloat(m[2]) * scale(m[3])) / (parseFloat(m[4]) * scale(m[5]));
      assert.ok(Math.abs(parseInt(m[1], 10) - shown * 100) <= 1, `${text}: ${(shown * 100).toFixed(1)}%`);
    }
  }
});

test("over the usable window the status says what the next request will do; the tooltip explains the reserve", () => {
  const over = { ...usage, used: 29_400, window: 30_000, effectiveWindow: 28_000, utilization: 1.05, level: "high" as const };
  assert.equal(statusText({ ...over, nextRequest: "compact" }), "$(pulse) 105% · 29.4K/28K · compacts next");
  assert.match(statusText({ ...over, nextRequest: "tooLarge" }), /too large$/);
  const tip = statusTooltip({ ...over, nextRequest: "trim" });
  assert.match(tip, /28K usable: 30K window − 2K reserved for the reply/);
  assert.match(tip, /older tool results will be cleared or shortened/);
});

test("status bar background by level", () => {
  assert.equal(statusBackground("ok"), undefined);
  assert.equal(statusBackground("warn"), "statusBarItem.warningBackground");
  assert.equal(statusBackground("high"), "statusBarItem.errorBackground");
  assert.equal(statusBackground(undefined), undefined);
});

test("phase texts", () => {
  assert.match(phaseText("starting"), /starting/);
  assert.match(phaseText("error"), /error/);
});

test("tooltip lists categories and the layers that acted", () => {
  const md = statusTooltip(usage);
  assert.match(md, /42%/);
  assert.match(md, /Tool results \| 40K/);
  assert.match(md, /System prompt \| 3K/);
  assert.match(md, /truncate/);
  assert.doesNotMatch(md, /snip/); // count 0: not listed
  const none = statusTooltip({ ...usage, layers: [] });
  assert.match(none, /No context layers have acted yet/);
});

test("usage, cost and compaction formatting", () => {
  assert.equal(formatUsage({ inputTokens: 1200, outputTokens: 300, cacheReadTokens: 0, cacheWriteTokens: 0 }), "1.2K in · 300 out");
  assert.equal(
    formatUsage({ inputTokens: 1200, outputTokens: 300, cacheReadTokens: 5000, cacheWriteTokens: 100 }),
    "1.2K in · 300 out · 5K cache read · 100 cache write",
  );
  assert.equal(formatUsd(0), "$0.00");
  assert.equal(formatUsd(0.004), "$0.0040");
  assert.equal(formatUsd(1.234), "$1.23");
  const cost: CostResult = { model: "demo", requests: 3, inputTokens: 1000, outputTokens: 200, cacheReadTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0, cacheTtl: "1h", usd: 0, unpricedModels: [] };
  assert.match(costMarkdown(cost), /Session cost: \$0\.00.*`demo`, 3 requests/);
  assert.match(costMarkdown(cost), /head and frontier breakpoints: 1h/);
  assert.match(costLine(cost), /^Agent cost: \$0\.00 · demo · 3 requests.*TTL 1h\)$/);
  assert.match(costLine({ ...cost, requests: 1 }), /^Agent cost: \$0\.00 · demo · 1 request · /);
  assert.equal(compactMarkdown({ tokensBefore: 80_000, tokensAfter: 20_000, summary: "s", compacted: true, note: "" }), "**Conversation compacted:** 80K → 20K tokens (−75%)");
  assert.match(compactMarkdown({ tokensBefore: 3_000, tokensAfter: 3_000, summary: "", compacted: false, note: "Nothing to gain: too short." }), /Nothing compacted:\*\* Nothing to gain: too short\./);
  assert.equal(formatChars(512), "512 chars");
  assert.equal(formatChars(12_300), "12K chars");
});

test("a model without a known price shows 'price unknown', never a borrowed price; tokens stay counted", () => {
  const base: CostResult = { model: "acme-x", requests: 2, inputTokens: 5000, outputTokens: 700, cacheReadTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0, cacheTtl: "5m", usd: 0, unpricedModels: ["acme-x"] };
  assert.match(costMarkdown(base), /Session cost: price unknown\*\* — model `acme-x`, 2 requests/);
  assert.match(costMarkdown(base), /Price unknown for acme-x \(tokens counted\)/);
  assert.match(costMarkdown(base), /\| Input \| 5K \|/);
  assert.match(costLine(base), /^Agent cost: price unknown \(price unknown for acme-x \(tokens counted\)\) · acme-x · 2 requests · 5K in/);
  const mixed = { ...base, usd: 0.25 };
  assert.match(costLine(mixed), /^Agent cost: \$0\.25 \+ price unknown/);
  assert.doesNotMatch(costMarkdown({ ...base, unpricedModels: [] }), /unknown/);
});

test("the tooltip names the working window and the model's maximum, with a one-click raise", () => {
  const tip = statusTooltip(usage);
  assert.match(tip, /Working window 200K of the model's 1M maximum \(claude-sonnet-5-5\)\./);
  assert.match(tip, /\[Use the full 1M window\]\(command:agentls\.useModelWindow\?%5B1000000%5D /);
  const full = statusTooltip({ ...usage, modelWindow: 200_000 });
  assert.match(full, /Working window 200K: the model's full window/);
  assert.doesNotMatch(full, /command:/);
  assert.match(statusTooltip({ ...usage, modelWindow: null }), /the model's maximum is not known/);
});

test("context markdown includes placeholders with their refs", () => {
  const c: ContextResult = {
    ...usage,
    placeholders: [{ toolUseId: "tu_1", tool: "read_file", layer: "snip", ref: "context://tu_1", originalChars: 45000 }],
    mcpTools: [],
    toolListChanges: 0,
    instructions: [],
    instructionChanges: 0,
    warnings: [],
  };
  const md = contextMarkdown(c);
  assert.match(md, /# Agent context/);
  assert.match(md, /`context:\/\/tu_1`/);
  assert.match(md, /45,000 chars/);
  assert.match(contextMarkdown({ ...c, placeholders: [] }), /None yet: the results in the context are in full/);
  assert.match(md, /No MCP tools offered/);
  const withMcp = contextMarkdown({ ...c, mcpTools: [{ server: "git", tools: 12, tokens: 2400 }], toolListChanges: 1 });
  assert.match(withMcp, /\| git \| 12 \| 2\.4K \|/);
  assert.match(withMcp, /Tool-list changes \(prompt-cache breaks\): 1/);
  assert.doesNotMatch(withMcp, /Tool search:/);
  const searched = contextMarkdown({
    ...c,
    mcpTools: [{ server: "many", tools: 300, tokens: 19800 }],
    toolSearch: { mode: "builtin", offered: 2, deferred: 298, loaded: 2, savedTokens: 19700 },
  });
  assert.match(searched, /Tool search: 2 offered, 298 deferred to agentls' search_tools, 2 loaded by search; 20K tokens/);
  const native = contextMarkdown({ ...c, toolSearch: { mode: "native", offered: 0, deferred: 300, loaded: 0, savedTokens: 19800 } });
  assert.match(native, /0 offered, 300 deferred to Anthropic's tool search tool; 20K tokens/);
  assert.match(md, /No instruction files: add AGENTS\.md/);
  const withFiles = contextMarkdown({
    ...c,
    instructions: [
      { name: "AGENTS.md", scope: "root", tokens: 420, chars: 1680, cut: false },
      { name: "src/AGENTS.md", scope: "nested", tokens: 5000, chars: 52000, cut: true },
    ],
    instructionChanges: 2,
  });
  assert.ok(withFiles.includes("| `AGENTS.md` | this workspace | 420 |  |"), withFiles);
  assert.ok(withFiles.includes("| `src/AGENTS.md` | its folder | 5K | cut: 52,000 chars, over the cap |"), withFiles);
  assert.match(withFiles, /Instruction changes \(prompt-cache breaks\): 2/);
  assert.doesNotMatch(withMcp, /⚠/);
  const warned = contextMarkdown({ ...c, warnings: ["MCP server 'git': its tools take 24,000 tokens, 12% of the window"] });
  assert.match(warned, /> ⚠ MCP server 'git': its tools take 24,000 tokens, 12% of the window/);
});

// Issue 9, point 4: "None: every tool result is in the context in full." under "clear 22 × saved 69K".
test("the context report never contradicts its own layer table", () => {
  const c: ContextResult = {
    ...usage,
    layers: [{ layer: "clear", count: 22, tokensSaved: 69_000 }, { layer: "compact", count: 1, tokensSaved: 40_000 }],
    placeholders: [],
    mcpTools: [],
    toolListChanges: 0,
    instructions: [],
    instructionChanges: 0,
    warnings: [],
  };
  const md = contextMarkdown(c);
  assert.match(md, /\| clear \| 22 \| 69K \|/);
  assert.doesNotMatch(md, /every tool result is in the context in full/);
  assert.match(md, /summarised away by compaction/);
  assert.match(md, /42% · 75.6K\/180K/); // the same meter as the status bar
});

test("the status bar warns within ten points of auto-compaction, and not when it is off", () => {
  const base = { used: 147_600, window: 200_000, effectiveWindow: 180_000, utilization: 0.82, autoCompactAt: 0.85 };
  assert.equal(compactWarning(base), "auto-compact at 85%: 3% left");
  assert.equal(statusText(base), "$(warning) 82% · 148K/180K · auto-compact at 85%: 3% left");
  assert.equal(compactWarning({ ...base, utilization: 0.7 }), "");
  assert.equal(compactWarning({ ...base, utilization: 0.86 }), "", "reached: the meter says what happens next");
  assert.equal(compactWarning({ ...base, autoCompactAt: null }), "");
  assert.equal(statusText({ ...base, autoCompactAt: null }), "$(pulse) 82% · 148K/180K");
});

test("Show Context lists the instruction files as their own category", () => {
  const table = categoriesTable({ system: 1000, tools: 2000, instructions: 350, user: 10, assistant: 20, toolResults: 30 });
  assert.match(table, /\| Instructions \(AGENTS\.md…\) \| 350 \|/);
});

test("issue 33.7: retry waits read as seconds, not raw floats", () => {
  assert.equal(formatSeconds(0.9961943065520347), "1 s");
  assert.equal(formatSeconds(0.45), "0.5 s");
  assert.equal(formatSeconds(2.25), "2.3 s");
  assert.equal(formatSeconds(12.4), "12 s");
  assert.equal(formatSeconds(125), "2 min 5 s");
  assert.equal(formatSeconds(Number.NaN), "a moment");
  const t = emptyTranscript();
  applyMessage(t, { type: "userMessage", text: "hi", attachments: [] });
  applyMessage(t, { type: "turnStarted" });
  applyMessage(t, { type: "event", event: { turnId: "t", kind: "retry", attempt: 2, delaySeconds: 0.9961943065520347, reason: "overloaded", discardPartial: false } });
  const reply = t.items[1];
  assert.ok(reply.role === "assistant" && reply.blocks.some((b) => b.kind === "note" && b.text === "Retrying (attempt 2) in 1 s: overloaded"));
});
