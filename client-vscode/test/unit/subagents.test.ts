/** Subagents in the extension's pure parts: /cost names each child and the sum; a child's question names it;
 * the reducer folds a child's steps into its task card. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentEvent, CostResult } from "../../src/protocol";
import { confirmTitle } from "../../src/shared/confirm";
import { costLine, costMarkdown } from "../../src/shared/format";
import { applyEvent, emptyTranscript, findCard, startTurn } from "../../src/shared/transcript";
import { cardOf } from "../../src/shared/transcriptOfRecord";

const usage = (i: number, o: number, r = 0, w = 0) => ({ inputTokens: i, outputTokens: o, cacheReadTokens: r, cacheWriteTokens: w });

test("/cost names each subagent's tokens and their sum", () => {
  const cost: CostResult = {
    model: "claude-sonnet-5-5", requests: 6, inputTokens: 9000, outputTokens: 900, cacheReadTokens: 2000, cacheWriteTokens: 0,
    cacheWrite1hTokens: 0, cacheTtl: "5m", usd: 0.05, unpricedModels: [],
    subagents: [
      { toolUseId: "a", name: "find callers", model: "claude-sonnet-5-5", requests: 2, usd: 0.01, ...usage(3000, 200) },
      { toolUseId: "b", name: "read notes", model: "claude-sonnet-5-5", requests: 1, usd: 0.03, ...usage(1500, 100, 2000) },
    ],
  };
  const md = costMarkdown(cost);
  assert.match(md, /\| find callers \| 2 \| 3.2K \| \$0\.01 \|/);
  assert.match(md, /\| read notes \| 1 \| 3.6K \| \$0\.03 \|/);
  assert.match(md, /\| \*\*Sum\*\* \| 3 \| 6.8K \| \$0\.04 \|/);
  assert.match(costLine(cost), /2 subagents: find callers 3.2K, read notes 3.6K$/);
  assert.doesNotMatch(costMarkdown({ ...cost, subagents: [] }), /Subagents/);
});

test("a subagent's approval question names it", () => {
  assert.equal(confirmTitle({ kind: "write", path: "a.txt", toolUseId: "t", subagent: "write greeting" }), "The subagent “write greeting” wants to write a.txt");
  assert.equal(confirmTitle({ kind: "write", path: "a.txt" }), "The agent wants to write a.txt");
});

test("a child's steps fold into its task card, never into the turn", () => {
  const t = emptyTranscript();
  startTurn(t);
  const events: AgentEvent[] = [
    { turnId: "t1", kind: "toolStart", toolUseId: "task1", tool: "task", summary: "task look" },
    { turnId: "t1", kind: "subagentStarted", toolUseId: "task1", name: "look", model: "m", fork: true, tools: ["read_file"] },
    { turnId: "t1", kind: "subagentStep", toolUseId: "task1", step: { kind: "toolStart", toolUseId: "c1", tool: "read_file", summary: "read a" } },
    { turnId: "t1", kind: "subagentStep", toolUseId: "task1", step: { kind: "textDelta", text: "done" } },
    { turnId: "t1", kind: "subagentFinished", toolUseId: "task1", name: "look", isError: false, usage: usage(10, 5), requests: 1, usd: 0, transcript: "context://task1/transcript" },
  ];
  for (const e of events) applyEvent(t, e);
  const card = findCard(t, "task1")!;
  assert.equal(findCard(t, "c1"), undefined);
  assert.equal(card.subagent?.fork, true);
  assert.deepEqual(card.subagent?.lines.map((l) => l.kind), ["tool", "text"]);
  assert.equal(card.subagent?.tokens, 15);
  const item = t.items[t.items.length - 1];
  assert.ok(item.role === "assistant" && item.blocks.every((b) => b.kind === "tool")); // no child text in the reply
});

test("a resumed task card shows its subagent's steps as they ended", () => {
  const card = cardOf({
    id: "task1", name: "task", summary: "look: done", isError: false, resultChars: 40, marker: "", input: null, diff: "",
    approval: "", reason: "", done: true,
    subagent: { name: "look", model: "m", fork: false, steps: [{ tool: "read_file", summary: "Read a.py", isError: false }], isError: false, requests: 2, tokens: 900, usd: 0.01, transcript: "context://task1/transcript" },
  });
  assert.equal(card.subagent?.name, "look");
  assert.deepEqual(card.subagent?.lines, [{ kind: "tool", step: { toolUseId: "step-0", tool: "read_file", summary: "Read a.py", done: true, isError: false } }]);
  assert.equal(card.subagent?.done, true);
  assert.equal(cardOf({ id: "x", name: "read_file", summary: "", isError: false, resultChars: 0, marker: "", input: null, diff: "", approval: "", reason: "", done: true }).subagent, undefined);
});
