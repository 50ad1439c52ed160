import assert from "node:assert/strict";
import { test } from "node:test";
import * as T from "../../src/shared/transcript";
import { fromSession } from "../../src/shared/transcriptOfRecord";

test("a turn: text, thinking, tool cards, usage footer", () => {
  const t = T.emptyTranscript();
  T.addUser(t, "read a.py", ["a.py"]);
  T.startTurn(t);
  T.applyEvent(t, { turnId: "t1", kind: "thinkingDelta", text: "let me " });
  T.applyEvent(t, { turnId: "t1", kind: "thinkingDelta", text: "look" });
  T.applyEvent(t, { turnId: "t1", kind: "toolStart", toolUseId: "u1", tool: "read_file", summary: "a.py" });
  assert.equal(T.isBusy(t), true);
  T.applyEvent(t, { turnId: "t1", kind: "toolEnd", toolUseId: "u1", tool: "read_file", summary: "a.py", isError: false, resultChars: 1234, marker: "truncated", approval: "", diff: "", reason: "" });
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
  T.applyEvent(t, { turnId: "t1", kind: "toolEnd", toolUseId: "u1", tool: "read_file", summary: "a.py", isError: false, resultChars: 10, marker: "", approval: "", diff: "", reason: "" });
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
  // one message per compaction: its divider replaces the "Compacting…" notice
  assert.deepEqual(t.items.slice(1).map((i) => i.role), ["compaction"]);
  const divider = t.items[1];
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
  T.applyEvent(t, { turnId: "t1", kind: "toolEnd", toolUseId: "u1", tool: "read_file", summary: "a.py", isError: false, resultChars: 10, marker: "", approval: "", diff: "", reason: "" });
  T.applyEvent(t, { turnId: "t1", kind: "textDelta", text: "half a sent" });
  T.applyEvent(t, { turnId: "t1", kind: "retry", attempt: 2, delaySeconds: 1, reason: "connection dropped", discardPartial: true });
  T.applyEvent(t, { turnId: "t1", kind: "textDelta", text: "A whole sentence." });
  const a = t.items[0];
  assert.ok(a.role === "assistant");
  assert.deepEqual(a.blocks.map((b) => b.kind), ["tool", "note", "text"]);
  assert.deepEqual(a.blocks[2], { kind: "text", text: "A whole sentence." });
});

test("a tool-list change is noted in the turn (one cache break)", () => {
  const t = T.emptyTranscript();
  T.startTurn(t);
  T.applyEvent(t, { turnId: "t1", kind: "toolsChanged", changes: 1, added: ["mcp__git__git_log"], removed: [] });
  assert.match(JSON.stringify(t.items), /Tools changed \(\+mcp__git__git_log\): the prompt cache is written again once\./);
});

test("a compaction with nothing to gain is one message, in a turn and outside one", () => {
  const t = T.emptyTranscript();
  T.applyEvent(t, { turnId: "c1", kind: "compactionStarted", reason: "manual" });
  T.applyEvent(t, { turnId: "c1", kind: "compactionFinished", tokensBefore: 2153, tokensAfter: 2153, summary: "", reason: "manual", compacted: false });
  assert.equal(t.items.length, 1);
  assert.ok(t.items[0].role === "notice" && /Nothing compacted.*2.2K tokens, unchanged/.test(t.items[0].markdown));
  T.startTurn(t);
  T.applyEvent(t, { turnId: "t1", kind: "compactionStarted", reason: "auto" });
  T.applyEvent(t, { turnId: "t1", kind: "compactionFinished", tokensBefore: 6000, tokensAfter: 6000, summary: "", reason: "auto", compacted: false });
  const a = t.items[1];
  assert.ok(a.role === "assistant");
  assert.deepEqual(a.blocks.map((b) => (b.kind === "note" ? b.text.slice(0, 17) : b.kind)), ["Nothing compacted"]);
});

test("a card waits for approval in the panel, then shows how it was decided", () => {
  const t = T.emptyTranscript();
  T.startTurn(t);
  T.applyEvent(t, { turnId: "t1", kind: "toolStart", toolUseId: "u1", tool: "run_shell", summary: "run_shell rm -rf build" });
  assert.equal(T.awaitApproval(t, "u1"), true);
  assert.equal(T.awaitApproval(t, "nope"), false);
  const card = () => ((t.items[0] as { blocks: T.Block[] }).blocks[0] as { card: T.ToolCard }).card;
  assert.equal(card().approval, "waiting");
  T.answerApproval(t, "u1", "rejected");
  assert.equal(card().approval, "rejected");
  T.applyEvent(t, { turnId: "t1", kind: "toolEnd", toolUseId: "u1", tool: "run_shell", summary: "rm -rf build → not approved", isError: true, resultChars: 60, marker: "", approval: "rejected", diff: "", reason: "not on main" });
  assert.deepEqual([card().approval, card().reason, card().isError], ["rejected", "not on main", true]);
});

test("the transcript of record comes back as the panel showed it live", () => {
  const tool = (id: string, name: string, over = {}) => ({ id, name, summary: `${name} done`, isError: false, resultChars: 10, marker: "" as const, input: { path: "a.py" }, diff: "", approval: "" as const, reason: "", done: true, ...over });
  const t = fromSession([
    { kind: "message", role: "user", text: "line one\nline two", tools: [], turnId: "t1", checkpoint: "t1", attachments: ["a.py:3-9"] },
    { kind: "message", role: "assistant", text: "Reading.", tools: [tool("u1", "read_file")], turnId: "t1" },
    { kind: "compaction", role: "system", text: "", tools: [], turnId: "t1", compaction: { tokensBefore: 27000, tokensAfter: 6000, reason: "auto", summary: "[Conversation summary] s" } },
    { kind: "message", role: "assistant", text: "Editing.", tools: [tool("u2", "edit_file", { diff: "@@ -3,3 +3,4 @@\n a\n", approval: "always" })], turnId: "t1" },
    { kind: "note", role: "system", text: "model call failed", tools: [], turnId: "t1", level: "error" },
    { kind: "compaction", role: "system", text: "", tools: [], turnId: "", compaction: { tokensBefore: 9000, tokensAfter: 3000, reason: "manual", summary: "s2" } },
    { kind: "message", role: "user", text: "stop it", tools: [], turnId: "t2", checkpoint: "t2", attachments: [] },
    { kind: "message", role: "assistant", text: "", tools: [tool("u3", "run_shell", { done: false })], turnId: "t2" },
    { kind: "note", role: "system", text: "Stopped.", tools: [], turnId: "t2", level: "info" },
  ]);
  assert.deepEqual(t.items.map((i) => i.role), ["user", "assistant", "compaction", "user", "assistant"]);
  const [user, first, , , second] = t.items;
  assert.ok(user.role === "user" && user.text === "line one\nline two" && user.attachments[0] === "a.py:3-9" && user.checkpoint === "t1");
  assert.ok(first.role === "assistant" && first.turnId === "t1" && first.status === "done");
  assert.deepEqual(first.blocks.map((b) => b.kind), ["text", "tool", "compaction", "text", "tool", "note"]);
  const edit = (first.blocks[4] as { card: T.ToolCard }).card;
  assert.deepEqual([edit.approval, edit.diff], ["always", "@@ -3,3 +3,4 @@\n a\n"]);
  assert.ok(second.role === "assistant" && second.status === "cancelled");
  const stopped = (second.blocks[0] as { card: T.ToolCard }).card;
  assert.ok(stopped.stopped && stopped.isError && stopped.done);
});
