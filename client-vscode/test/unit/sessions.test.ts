import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionInfo, TranscriptEntry } from "../../src/protocol";
import { ago, sessionRow } from "../../src/shared/sessionItems";
import { parseInput } from "../../src/shared/slash";
import { fromSession } from "../../src/shared/transcriptOfRecord";

const session = (over: Partial<SessionInfo> = {}): SessionInfo => ({
  id: "s1", title: "fix the build", workspace: "/ws", created: 1000, updated: 1000,
  turns: 3, tokens: 12_500, costUsd: 0.0421, inUse: false, current: false, ...over,
});

test("a history row: title, when, state, turns, tokens and cost", () => {
  const row = sessionRow(session({ current: true }), 1000 + 7200);
  assert.deepEqual(row, { label: "fix the build", description: "2 h ago · this chat", detail: "3 turns · 13K tokens · $0.04" });
  assert.match(sessionRow(session({ inUse: true }), 1030).description, /just now · open in another window/);
  assert.equal(ago(0, 5), "not started");
});

test("a resumed transcript shows prompts, replies and finished tool cards", () => {
  const entries: TranscriptEntry[] = [
    { kind: "message", role: "user", text: "read a.py", tools: [], turnId: "" },
    { kind: "message", role: "assistant", text: "It defines main.", turnId: "", tools: [{ id: "t1", name: "read_file", summary: "read_file a.py", isError: false, resultChars: 120, marker: "", input: { path: "a.py" }, diff: "", approval: "", reason: "", done: true }] },
  ];
  const t = fromSession(entries);
  assert.deepEqual(t.items[0], { role: "user", text: "read a.py", attachments: [] });
  const reply = t.items[1];
  assert.ok(reply.role === "assistant" && reply.status === "done");
  assert.deepEqual(reply.blocks.map((b) => b.kind), ["text", "tool"]);
  const card = reply.blocks[1];
  assert.ok(card.kind === "tool" && card.card.done && card.card.resultChars === 120);
});

test("/clear and /new start a new chat; /sessions opens the history", () => {
  assert.deepEqual(parseInput("/new"), { type: "command", name: "new", args: "" });
  assert.deepEqual(parseInput("/sessions"), { type: "command", name: "sessions", args: "" });
  assert.deepEqual(parseInput("/clear"), { type: "command", name: "clear", args: "" });
});
