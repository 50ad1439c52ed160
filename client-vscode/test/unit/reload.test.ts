/**
 * Issue 28: nothing of the transcript is stored by the extension or the webview; after a reload
 * the panel shows the conversation the server holds, from its transcript of record.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { CheckpointInfo, TranscriptEntry } from "../../src/protocol";
import type { ToWebview } from "../../src/shared/messages";
import { scriptedChat, type Answers } from "./scriptedChat";

const RECORD: TranscriptEntry[] = [
  { kind: "message", role: "user", text: "make it say hi", tools: [], turnId: "t1", checkpoint: "t1" },
  { kind: "message", role: "assistant", text: "It says hi.", tools: [], turnId: "t1" },
];
const CHECKPOINTS: CheckpointInfo[] = [{ id: "t1", prompt: "make it say hi", at: 0, kind: "turn", files: [], skipped: [], rewound: true }];

const server: Answers = {
  "agent/sessions": async () => ({ sessions: [], current: "s1" }),
  "agent/resume": async () => ({ sessionId: "s1", transcript: RECORD }),
  "agent/checkpoints": async () => ({ checkpoints: CHECKPOINTS }),
};
const inits = (posted: ToWebview[]) => posted.filter((m) => m.type === "init") as Extract<ToWebview, { type: "init" }>[];

test("after a reload the views show the server's transcript of record, rewound turns greyed, notices kept after it", async () => {
  const chat = scriptedChat(server);
  assert.equal(chat.panel.loading, true, "views wait for the record instead of showing an empty chat");
  chat.panel.notice("The agent server restarted.", "info");
  await chat.sessions.restoreOnStart();
  assert.deepEqual(chat.calls.map(([m, p]) => [m, p]), [
    ["agent/sessions", {}],
    ["agent/resume", { sessionId: "s1" }],
    ["agent/checkpoints", {}],
  ]);
  const [init] = inits(chat.posted);
  assert.equal(init.loading, undefined);
  assert.deepEqual(init.items.map((i) => i.role), ["user", "assistant", "notice"]);
  assert.ok(init.items[1].role === "assistant" && init.items[1].rewound);
  await chat.sessions.restoreOnStart(); // a restarted server going on with the one shown: the panel keeps it
  assert.deepEqual(chat.calls.slice(3).map(([m]) => m), ["agent/sessions"], "the panel asks, never assumes");
  assert.equal(inits(chat.posted).length, 1);
});

test("issue 33.1: a restarted server that goes on with another conversation: the panel shows the server's", async () => {
  let current = "s1";
  const chat = scriptedChat({
    ...server,
    "agent/sessions": async () => ({ sessions: [], current }),
    "agent/resume": async (p) => ({ sessionId: (p as { sessionId: string }).sessionId, transcript: current === "s1" ? RECORD : [] }),
  });
  await chat.sessions.restoreOnStart();
  assert.deepEqual(chat.panel.transcript.items.map((i) => i.role), ["user", "assistant"]);
  current = "s2";
  await chat.sessions.restoreOnStart();
  assert.deepEqual(chat.calls.slice(3).map(([m, p]) => [m, p]), [["agent/sessions", {}], ["agent/resume", { sessionId: "s2" }]]);
  assert.deepEqual(chat.panel.transcript.items.map((i) => i.role), ["notice"], "s2's (empty) transcript, and why");
});

test("a prompt sent before the record arrives wins; a server without the record leaves an empty chat", async () => {
  const chat = scriptedChat(server);
  const restoring = chat.sessions.restoreOnStart();
  chat.panel.emit({ type: "userMessage", text: "hello", attachments: [] });
  await restoring;
  assert.deepEqual(inits(chat.posted), []);
  assert.deepEqual(chat.panel.transcript.items.map((i) => i.role), ["user"]);
  assert.equal(chat.panel.loading, false);

  const older = scriptedChat({});
  await older.sessions.restoreOnStart();
  assert.deepEqual(inits(older.posted).map((m) => [m.items.length, m.loading]), [[0, undefined]]);
});

test("a server that fails to start: the views stop waiting; once it runs, its record is shown", async () => {
  const chat = scriptedChat(server);
  chat.panel.notice("The agent server failed to start.", "error");
  chat.sessions.stopWaiting();
  assert.deepEqual(inits(chat.posted).map((m) => [m.items.length, m.loading]), [[1, undefined]]);
  await chat.sessions.restoreOnStart();
  assert.deepEqual(inits(chat.posted).map((m) => m.items.map((i) => i.role)), [["notice"], ["user", "assistant", "notice"]]);
});

test("issue 33.4: a chat resumed from the history keeps its rewound turns, badges and restore notes", async () => {
  const record: TranscriptEntry[] = [
    ...RECORD.slice(0, 1),
    { kind: "message", role: "assistant", text: "read it", turnId: "t1", tools: [{ id: "c1", name: "read_file", summary: "notes.md", isError: false, resultChars: 80, marker: "cleared", input: { path: "notes.md" }, diff: "", approval: "", reason: "", done: true }] },
    { kind: "note", role: "system", text: "Restored `notes.md`.", tools: [], turnId: "", level: "info" },
  ];
  const chat = scriptedChat({ ...server, "agent/resume": async () => ({ sessionId: "s2", transcript: record }) });
  await chat.sessions.resume("s2");
  const [user, reply, note] = chat.panel.transcript.items;
  assert.ok(reply.role === "assistant" && reply.rewound, "the turn a restore took back is grey");
  assert.ok(reply.role === "assistant" && reply.blocks.some((b) => b.kind === "tool" && b.card.marker === "cleared"));
  assert.ok(note.role === "notice" && note.markdown === "Restored `notes.md`.");
  assert.equal(user.role, "user");
});
