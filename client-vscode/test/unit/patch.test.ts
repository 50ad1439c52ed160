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
