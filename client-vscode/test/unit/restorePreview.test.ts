/**
 * Issue 33 (Low list): a restore's preview is VS Code's diff editor, each file's text now beside its text
 * after the restore, made from the server's diffs (difflib's, from now to the checkpoint).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { CheckpointFileDiff } from "../../src/protocol";
import { restoreSides, restoreSideTitle, undoAction } from "../../src/shared/checkpoints";

const NOW = "# Demo\n\nThis line will be edited.\n<!-- edited -->\nmine\n";
const file = (path: string, change: CheckpointFileDiff["change"], diff: string, conflict = false): CheckpointFileDiff => ({ path, change, diff, conflict });

test("each file's two sides: now, and after the restore (a recreated file from nothing, a deleted one to nothing)", () => {
  const sides = restoreSides([
    file("README.md", "modified", "--- a/README.md\n+++ b/README.md\n@@ -1,5 +1,3 @@\n # Demo\n \n This line will be edited.\n-<!-- edited -->\n-mine\n", true),
    file("gone.py", "added", "--- /dev/null\n+++ b/gone.py\n@@ -0,0 +1,2 @@\n+new file\n+line 2\n"),
    file("made.txt", "deleted", "--- a/made.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-made by the agent\n"),
  ], (p) => ({ "README.md": NOW, "made.txt": "made by the agent\n" })[p] ?? "");
  assert.deepEqual(sides, [
    { path: "README.md", now: NOW, restored: "# Demo\n\nThis line will be edited.\n", conflict: true },
    { path: "gone.py", now: "", restored: "new file\nline 2\n", conflict: false },
    { path: "made.txt", now: "made by the agent\n", restored: "", conflict: false },
  ]);
  assert.equal(restoreSideTitle(sides![0]), "README.md: now ↔ after the restore (your changes would be overwritten)");
});

test("a diff that does not apply to the file now (changed again meanwhile, a link, a cut diff): no sides, the text preview", () => {
  const diff = "--- a/README.md\n+++ b/README.md\n@@ -1,5 +1,3 @@\n # Demo\n \n This line will be edited.\n-<!-- edited -->\n-mine\n";
  assert.equal(restoreSides([file("README.md", "modified", diff)], () => "something else entirely\n"), undefined);
  assert.equal(restoreSides([file("l", "modified", "l: is now a symbolic link (to x); the rewind replaces the link itself\n")], () => "x"), undefined);
});

test("the restore notice's Undo restores the files to the checkpoint taken before the restore, under its name", () => {
  const result = { checkpoint: "c1", undo: "u1", restored: ["README.md"], conflicts: [], skipped: [], conversation: false, cancelled: false };
  const named = { ...result, checkpoints: [{ id: "u1", prompt: "Undo restore of “edit README.md”", at: 0, kind: "rewind" as const, files: [], skipped: [], rewound: false }] };
  assert.deepEqual(undoAction(named, "edit README.md"), {
    label: "Undo",
    title: "Put the files back as they were before this restore",
    post: { type: "restore", checkpoint: "u1", restore: "code", prompt: "Undo restore of “edit README.md”" },
  });
  assert.equal(undoAction(result, "edit README.md")?.post.prompt, "Undo restore of “edit README.md”", "an older server's answer: named here");
  assert.equal(undoAction({ ...result, undo: null }, "x"), undefined, "nothing to undo: no button");
  assert.equal(undoAction({ ...result, cancelled: true }, "x"), undefined);
});
