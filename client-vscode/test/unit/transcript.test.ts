import assert from "node:assert/strict";
import { test } from "node:test";
import * as T from "../../src/shared/transcript";

test("a turn: text, thinking, tool cards, usage footer", () => {
  const t = T.emptyTranscript();
  T.addUser(t, "read a.py", ["a.py"]);
  T.startTurn(t);
  T.applyEvent(t, { turnId: "t1", kind: "thinkingDelta", text: "let me " });
  T.applyEvent(t, { turnId: "t1", kind: "thinkingDelta", text: "look" });
  T.applyEvent(t, { turnId: "t1", kind: "toolStart", toolUseId: "u1", tool: "read_file", summary: "a.py" });
  assert.equal(T.isBusy(t), true);
  T.applyEvent(t, { turnId: "t1", kind: "toolEnd", toolUseId: "u1", tool: "read_file", summary: "a.py", isError: false, resultChars: 1234, marker: "truncated" });
  T.applyEvent(t, { turnId: "t1", kind: "textDelta", text: "It " });
  T.applyEvent(t, { turnId: "t1", kind: "textDelta", text: "prints." });
  T.endTurn(t, "done", undefined, "1K in · 20 out");
  assert.equal(t.items.length, 2);
  const a = t.items[1];
  assert.ok(a.role === "assistant");
  assert.equal(a.turnId, "t1");
  assert.equal(a.status, "done");
  assert.equal(a.footer, "1K in · 20 out");
  assert.deepEqual(a.blocks.map((b) => b.kind), ["thinking", "tool", "text"]);
  assert.deepEqual(a.blocks[0], { kind: "thinking", text: "let me look" });
  assert.deepEqual(a.blocks[2], { kind: "text", text: "It prints." });
  const card = (a.blocks[1] as { card: T.ToolCard }).card;
  assert.equal(card.done, true);
  assert.equal(card.resultChars, 1234);
  assert.equal(card.marker, "truncated");
  assert.equal(T.isBusy(t), false);
});

test("layer events update earlier cards", () => {
  const t = T.emptyTranscript();
  T.startTurn(t);
  T.applyEvent(t, { turnId: "t1", kind: "toolStart", toolUseId: "u1", tool: "read_file", summary: "a.py" });
  T.applyEvent(t, { turnId: "t1", kind: "toolEnd", toolUseId: "u1", tool: "read_file", summary: "a.py", isError: false, resultChars: 10, marker: "" });
  T.endTurn(t, "done");
  T.addUser(t, "next");
  T.startTurn(t);
  T.applyEvent(t, { turnId: "t2", kind: "layer", layer: "snip", toolUseIds: ["u1"], marker: "snipped" });
  const a = t.items[0];
  assert.ok(a.role === "assistant");
  assert.equal((a.blocks[0] as { card: T.ToolCard }).card.marker, "snipped");
});

test("cancel and error outcomes, compaction outside a turn", () => {
  const t = T.emptyTranscript();
  T.startTurn(t);
  T.applyEvent(t, { turnId: "t1", kind: "toolStart", toolUseId: "u1", tool: "run", summary: "sleep 10" });
  T.endTurn(t, "cancelled", "Stopped.");
  const a = t.items[0];
  assert.ok(a.role === "assistant");
  assert.equal(a.status, "cancelled");
  assert.equal((a.blocks[0] as { card: T.ToolCard }).card.done, true);
  T.applyEvent(t, { turnId: "c1", kind: "compactionStarted", reason: "manual" });
  T.applyEvent(t, { turnId: "c1", kind: "compactionFinished", tokensBefore: 80000, tokensAfter: 9000, summary: "[Conversation summary] goal", reason: "manual", compacted: true });
  assert.deepEqual(t.items.slice(1).map((i) => i.role), ["notice", "compaction"]);
  const divider = t.items[2];
  assert.ok(divider.role === "compaction");
  assert.equal(T.dividerLabel(divider.divider), "Compacted: 80K → 9K tokens (asked for)");
  assert.equal(divider.divider.summary, "[Conversation summary] goal");
  T.startTurn(t);
  T.applyEvent(t, { turnId: "t3", kind: "error", message: "API said no" });
  T.endTurn(t, "error", "model call failed: API said no");
  const last = t.items[t.items.length - 1];
  assert.ok(last.role === "assistant" && last.status === "error");
});

test("an automatic compaction mid-turn is a divider inside the turn; nothing to gain is a note", () => {
  const t = T.emptyTranscript();
  T.startTurn(t);
  T.applyEvent(t, { turnId: "t1", kind: "compactionFinished", tokensBefore: 27000, tokensAfter: 6000, summary: "s", reason: "auto", compacted: true });
  T.applyEvent(t, { turnId: "t1", kind: "compactionFinished", tokensBefore: 6000, tokensAfter: 6000, summary: "", reason: "auto", compacted: false });
  const a = t.items[0];
  assert.ok(a.role === "assistant");
  assert.deepEqual(a.blocks.map((b) => b.kind), ["compaction", "note"]);
  assert.match((a.blocks[1] as { text: string }).text, /Nothing compacted/);
});

test("settle closes a dangling streaming item", () => {
  const t = T.emptyTranscript();
  T.startTurn(t);
  T.settle(t, "Interrupted.");
  assert.equal(T.isBusy(t), false);
});

test("a turn ends on its own item even when notices were posted after it", () => {
  const t = T.emptyTranscript();
  T.addUser(t, "crash please");
  T.startTurn(t);
  T.addNotice(t, "restarting", "warn");
  assert.equal(T.isBusy(t), true);
  T.endTurn(t, "error", "server stopped");
  assert.equal(t.items.length, 3);
  const a = t.items[1];
  assert.ok(a.role === "assistant" && a.status === "error");
  assert.deepEqual(a.blocks, [{ kind: "note", text: "server stopped", level: "error" }]);
});

test("a retry that restarts the reply drops what it had streamed", () => {
  const t = T.emptyTranscript();
  T.startTurn(t);
  T.applyEvent(t, { turnId: "t1", kind: "toolStart", toolUseId: "u1", tool: "read_file", summary: "a.py" });
  T.applyEvent(t, { turnId: "t1", kind: "toolEnd", toolUseId: "u1", tool: "read_file", summary: "a.py", isError: false, resultChars: 10, marker: "" });
  T.applyEvent(t, { turnId: "t1", kind: "textDelta", text: "half a sent" });
  T.applyEvent(t, { turnId: "t1", kind: "retry", attempt: 2, delaySeconds: 1, reason: "connection dropped", discardPartial: true });
  T.applyEvent(t, { turnId: "t1", kind: "textDelta", text: "A whole sentence." });
  const a = t.items[0];
  assert.ok(a.role === "assistant");
  assert.deepEqual(a.blocks.map((b) => b.kind), ["tool", "note", "text"]);
  assert.deepEqual(a.blocks[2], { kind: "text", text: "A whole sentence." });
});
