/**
 * Issue 28: a rewind asks once. The restore modal names the files changed outside the agent;
 * the ones the user agreed to overwrite go with agent/rewind (`overwrite`), a rewind confirm the
 * server still sends is a real question (never answered by the client itself), and the task list
 * and checkpoints come from the result (asked for only when an older server leaves them out).
 */
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";
import * as vscode from "vscode";
import { makeConfirmHandler } from "../../src/approvals";
import type { Panel } from "../../src/chat/panel";
import type { CheckpointDiffResult, CheckpointInfo, ConfirmParams, ConfirmResult, TranscriptEntry } from "../../src/protocol";
import { OVERWRITE_BUTTON, RESTORE_BUTTON } from "../../src/shared/checkpoints";
import { scriptedChat } from "./scriptedChat";

const fake = (vscode as unknown as { __fake: { reset(): void; nextChoice?: string; messages: { message: string; items: unknown[] }[]; picks: { items: { label: string }[]; options?: { title?: string } }[] } }).__fake;

const DIFF: CheckpointDiffResult = {
  checkpoint: "turn-1",
  files: [
    { path: "mine.txt", change: "modified", diff: "-theirs\n+mine\n", conflict: true },
    { path: "agent.txt", change: "modified", diff: "-b\n+a\n", conflict: false },
  ],
  skipped: [],
};
const TRANSCRIPT: TranscriptEntry[] = [
  { kind: "message", role: "user", text: "before", tools: [], turnId: "turn-0", checkpoint: "turn-0" },
  { kind: "message", role: "assistant", text: "done", tools: [], turnId: "turn-0" },
];
const CHECKPOINTS: CheckpointInfo[] = [{ id: "turn-0", prompt: "before", at: 0, kind: "turn", files: [], skipped: [], rewound: true }];
const TODOS = [{ content: "write the test", status: "in_progress" as const }];

/** The panel's restore over a scripted server: `rewind` answers agent/rewind. */
function setup(rewind: (params: Record<string, unknown>) => Promise<unknown>) {
  return scriptedChat({
    "agent/checkpointDiff": async () => DIFF,
    "agent/rewind": rewind,
    "agent/todos": async () => ({ todos: TODOS }),
    "agent/checkpoints": async () => ({ checkpoints: CHECKPOINTS }),
  });
}

const rewound = (items: Panel["transcript"]["items"]) => items.filter((i) => i.role === "assistant" && i.rewound).length;

beforeEach(() => fake.reset());

test("the conflicts agreed to in the restore modal go with the rewind; its result carries the task list and checkpoints", async () => {
  const s = setup(async () => ({ checkpoint: "turn-1", undo: "u", restored: ["mine.txt", "agent.txt"], conflicts: ["mine.txt"], skipped: [], conversation: true, cancelled: false, transcript: TRANSCRIPT, todos: TODOS, checkpoints: CHECKPOINTS }));
  fake.nextChoice = OVERWRITE_BUTTON;
  assert.equal(await s.checkpoints.restore("turn-1", "both", "make it so"), true);
  assert.match(fake.picks[0].options?.title ?? "", /Restore the files and the conversation/); // the user's changes at stake: a pick, Cancel first
  const [, params] = s.calls.find(([m]) => m === "agent/rewind")!;
  assert.deepEqual(params, { checkpoint: "turn-1", restore: "both", overwrite: ["mine.txt"] });
  assert.deepEqual(s.calls.map(([m]) => m), ["agent/checkpointDiff", "agent/rewind"], "no agent/todos, no agent/checkpoints");
  assert.deepEqual(s.panel.todos, TODOS);
  assert.deepEqual(s.posted.filter((m) => m.type === "todos"), [{ type: "todos", todos: TODOS }]);
  assert.equal(rewound(s.panel.transcript.items), 1, "the rewound turn is greyed from the result's checkpoints");
});

test("no conflict: nothing to overwrite is sent; an older server's result is completed by agent/todos and agent/checkpoints", async () => {
  const s = setup(async () => ({ checkpoint: "turn-1", undo: null, restored: [], conflicts: [], skipped: [], conversation: true, cancelled: false, transcript: TRANSCRIPT }));
  fake.nextChoice = RESTORE_BUTTON;
  assert.equal(await s.checkpoints.restore("turn-1", "conversation", "make it so"), true);
  assert.deepEqual(s.calls.map(([m, p]) => [m, p]), [
    ["agent/rewind", { checkpoint: "turn-1", restore: "conversation" }],
    ["agent/todos", {}],
    ["agent/mode", {}],
    ["agent/checkpoints", {}],
  ]);
  assert.deepEqual(s.panel.todos, TODOS);
  assert.equal(rewound(s.panel.transcript.items), 1);
});

test("a rewind confirm the server still sends is asked, never answered by the client itself", async () => {
  const asked: string[] = [];
  const ui = {
    showWarningMessage: (message: string) => {
      asked.push(message);
      return Promise.resolve(undefined); // the user says no
    },
  };
  const confirm = makeConfirmHandler(undefined as never, ui as never);
  let answer: ConfirmResult | undefined;
  const s = setup(async () => {
    // a file changed again after the diff was shown: the server asks about it
    const question: ConfirmParams = { kind: "rewind", checkpoint: "turn-1", paths: ["late.txt"] };
    answer = await confirm(question);
    return { checkpoint: "turn-1", undo: null, restored: [], conflicts: ["late.txt"], skipped: [], conversation: false, cancelled: true, todos: [], checkpoints: [] };
  });
  fake.nextChoice = OVERWRITE_BUTTON;
  assert.equal(await s.checkpoints.restore("turn-1", "code", "make it so"), false);
  assert.deepEqual(answer, { approved: false, remember: false });
  assert.equal(asked.length, 1);
  assert.match(asked[0], /overwrite files changed outside the agent/);
  assert.match(s.posted.filter((m) => m.type === "notice").map((m) => (m as { markdown: string }).markdown).join("\n"), /Restore cancelled/);
});

test("issue 33.5: over the user's own changes Cancel is the first, active choice (Enter keeps them); without them Restore is; never a modal over the diff", async () => {
  const s = setup(async () => ({ checkpoint: "turn-1", undo: null, restored: [], conflicts: [], skipped: [], conversation: false, cancelled: false, todos: [], checkpoints: [] }));
  assert.equal(await s.checkpoints.restore("turn-1", "code", "make it so"), false); // Enter on the active item, or Escape
  assert.deepEqual(fake.picks[0].items.map((i) => i.label), ["Cancel", OVERWRITE_BUTTON], "Cancel first: what Enter picks");
  assert.match(fake.picks[0].options?.title ?? "", /Restore the files to before/);
  assert.equal(fake.messages.length, 0, "no modal over the preview");
  assert.ok(!s.calls.some(([m]) => m === "agent/rewind"), "nothing restored");
  fake.nextChoice = OVERWRITE_BUTTON; // chosen on purpose
  assert.equal(await s.checkpoints.restore("turn-1", "code", "make it so"), true);

  const plain = scriptedChat({ "agent/checkpointDiff": async () => ({ ...DIFF, files: [DIFF.files[1]] }), "agent/rewind": async () => ({ checkpoint: "turn-1", undo: null, restored: ["agent.txt"], conflicts: [], skipped: [], conversation: false, cancelled: false, todos: [], checkpoints: [] }) });
  fake.reset();
  fake.nextChoice = RESTORE_BUTTON;
  assert.equal(await plain.checkpoints.restore("turn-1", "code", "make it so"), true);
  // nothing of the user's is lost: Restore is the first choice, still asked beside the diff editors, no modal over them
  assert.deepEqual(fake.picks[0].items.map((i) => i.label), [RESTORE_BUTTON, "Cancel"]);
  assert.equal(fake.messages.length, 0, "no modal over the preview");
});
