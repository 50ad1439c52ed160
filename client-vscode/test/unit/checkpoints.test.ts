import assert from "node:assert/strict";
import { test } from "node:test";
import type { CheckpointDiffResult } from "../../src/protocol";
import { OVERWRITE_BUTTON, RESTORE_BUTTON, previewText, restoreQuestion, rewindSummary } from "../../src/shared/checkpoints";
import * as T from "../../src/shared/transcript";
import { fromSession } from "../../src/shared/transcriptOfRecord";

const DIFF: CheckpointDiffResult = {
  checkpoint: "t1",
  files: [
    { path: "app.py", change: "modified", diff: "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-hi\n+hello\n", conflict: false },
    { path: "notes.md", change: "modified", diff: "--- a/notes.md\n+++ b/notes.md\n@@ -1 +1 @@\n-mine\n+old\n", conflict: true },
  ],
  skipped: [{ path: "logo.png", change: "modified", reason: "binary" }],
};

test("a live turn links its user message to the checkpoint (the turn id) and a restore greys it", () => {
  const t = T.emptyTranscript();
  T.addUser(t, "make it say hi");
  T.startTurn(t);
  T.applyEvent(t, { turnId: "turn-1", kind: "toolStart", toolUseId: "u1", tool: "edit_file", summary: "edit_file app.py" });
  T.applyEvent(t, { turnId: "turn-1", kind: "checkpoint", checkpoint: "turn-1", files: [{ path: "app.py", change: "modified" }], skipped: [] });
  T.endTurn(t, "done");
  assert.equal((t.items[0] as { checkpoint?: string }).checkpoint, "turn-1");
  T.markRewound(t, new Set(["turn-1"]));
  assert.equal((t.items[1] as { rewound?: boolean }).rewound, true);
  T.markRewound(t, new Set());
  assert.equal((t.items[1] as { rewound?: boolean }).rewound, undefined);
});

test("a resumed transcript keeps each message's checkpoint, and the reply takes its id", () => {
  const t = fromSession([
    { kind: "message", role: "user", text: "first", tools: [], turnId: "", checkpoint: "c1" },
    { kind: "message", role: "assistant", text: "done", tools: [], turnId: "" },
    { kind: "message", role: "user", text: "second", tools: [], turnId: "" },
    { kind: "message", role: "assistant", text: "ok", tools: [], turnId: "" },
  ]);
  assert.equal((t.items[0] as { checkpoint?: string }).checkpoint, "c1");
  assert.equal((t.items[1] as { turnId: string }).turnId, "c1");
  assert.equal((t.items[2] as { checkpoint?: string }).checkpoint, undefined);
});

test("the restore question names conflicts first and asks to overwrite them", () => {
  const q = restoreQuestion("make it say hi", "both", DIFF);
  assert.match(q.message, /Restore the files and the conversation to before “make it say hi”/);
  assert.equal(q.button, OVERWRITE_BUTTON);
  assert.ok(q.detail.indexOf("notes.md") < q.detail.indexOf("2 files will change"));
  assert.match(q.detail, /not restored: logo.png \(binary\)/);
  assert.equal(restoreQuestion("x", "conversation").button, RESTORE_BUTTON);
  assert.match(previewText(DIFF), /# CHANGED OUTSIDE THE AGENT since: notes.md\n--- a\/notes.md/);
});

test("the summary after a rewind says what happened", () => {
  const base = { checkpoint: "c", undo: "u", restored: ["app.py"], conflicts: [], skipped: [], conversation: true, cancelled: false, todos: [], checkpoints: [] };
  assert.match(rewindSummary(base), /Restored `app.py`\..*back to before that message.*Undo puts the files back/);
  assert.equal(rewindSummary({ ...base, cancelled: true }), "Restore cancelled: nothing changed.");
});
