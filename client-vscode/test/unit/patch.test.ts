import assert from "node:assert/strict";
import { test } from "node:test";
import { applyUnifiedDiff } from "../../src/shared/patch";

const original = "a\nb\nc\nd\ne\n";

test("applies a simple hunk", () => {
  const diff = "--- a/x\n+++ b/x\n@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n";
  assert.equal(applyUnifiedDiff(original, diff), "a\nb\nC\nd\ne\n");
});

test("tolerates an offset and multiple hunks", () => {
  const diff = "@@ -1,2 +1,3 @@\n a\n+a2\n b\n@@ -10,2 +11,2 @@\n d\n-e\n+E\n";
  assert.equal(applyUnifiedDiff(original, diff), "a\na2\nb\nc\nd\nE\n");
});

test("new file from an empty original", () => {
  assert.equal(applyUnifiedDiff("", "--- /dev/null\n+++ b/n.py\n@@ -0,0 +1,2 @@\n+x = 1\n+y = 2\n"), "x = 1\ny = 2\n");
});

test("returns undefined when context does not match or no hunks", () => {
  assert.equal(applyUnifiedDiff(original, "@@ -2,1 +2,1 @@\n-zzz\n+y\n"), undefined);
  assert.equal(applyUnifiedDiff(original, "not a diff"), undefined);
});

test("keeps CRLF line endings", () => {
  const diff = "@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n";
  assert.equal(applyUnifiedDiff(original.replace(/\n/g, "\r\n"), diff), "a\r\nb\r\nC\r\nd\r\ne\r\n");
});

test("honours \\ No newline at end of file (the server's diffs carry it)", () => {
  const diff = "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+B\n\\ No newline at end of file\n";
  assert.equal(applyUnifiedDiff("a\nb", diff), "a\nB");
  const added = "@@ -1,2 +1,3 @@\n a\n b\n+c\n\\ No newline at end of file\n";
  assert.equal(applyUnifiedDiff("a\nb\n", added), "a\nb\nc");
});

// The `diff` package's choices where the hand-written applier it replaced differed (kept on purpose):
test("a hunk is found wherever its context is, nearest to its stated line first", () => {
  const long = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
  const diff = "@@ -1,2 +1,2 @@\n line 80\n-line 81\n+LINE 81\n"; // 79 lines below where it says
  assert.equal(applyUnifiedDiff(long, diff), long.replace("line 81\n", "LINE 81\n"));
});

test("returns undefined for counts that disagree with the header, or a diff of several files", () => {
  assert.equal(applyUnifiedDiff(original, "@@ -2,3 +2,3 @@\n b\n-c\n+C\n"), undefined);
  const two = "--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n-a\n+A\n--- a/y\n+++ b/y\n@@ -1,1 +1,1 @@\n-b\n+B\n";
  assert.equal(applyUnifiedDiff(original, two), undefined);
});
