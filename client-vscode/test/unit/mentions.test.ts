import assert from "node:assert/strict";
import { test } from "node:test";
import { activeMention, applyMention, findMentions, mentionedPaths, rankPaths } from "../../src/shared/mentions";

test("finds @paths with boundaries and trailing punctuation", () => {
  assert.deepEqual(mentionedPaths("look at @src/app.py and @README.md."), ["src/app.py", "README.md"]);
  assert.deepEqual(mentionedPaths("@a.py, (@b/c.ts) @a.py"), ["a.py", "b/c.ts"]);
  assert.deepEqual(mentionedPaths("mail me at bob@example.com"), []);
  assert.deepEqual(mentionedPaths("just @"), []);
  const m = findMentions("x @foo.py y");
  assert.deepEqual(m, [{ path: "foo.py", start: 2, end: 9 }]);
});

test("active mention at the caret", () => {
  assert.deepEqual(activeMention("see @src/ma", 11), { query: "src/ma", start: 4 });
  assert.deepEqual(activeMention("@", 1), { query: "", start: 0 });
  assert.equal(activeMention("see @src/ma now", 15), undefined);
  assert.equal(activeMention("a@b", 3), undefined);
});

test("applying a completion replaces the partial mention", () => {
  const r = applyMention("see @src/ma please", 4, 11, "src/main.py");
  assert.equal(r.text, "see @src/main.py please");
  assert.equal(r.caret, "see @src/main.py ".length);
});

test("ranking prefers basename matches", () => {
  const paths = ["docs/notes.md", "src/main.py", "src/domain/main_test.py", "tests/test_main.py"];
  assert.deepEqual(rankPaths(paths, "main.py").slice(0, 1), ["src/main.py"]);
  assert.ok(rankPaths(paths, "mn").includes("src/main.py")); // subsequence
  assert.deepEqual(rankPaths(paths, "zzz"), []);
  assert.equal(rankPaths(paths, "", 2).length, 2);
});

test("@READ ranks the workspace's own README.md first", () => {
  const paths = ["client-vscode/README.md", "docs/read.py", "README.md", "server/reader.py"];
  assert.deepEqual(rankPaths(paths, "READ").slice(0, 2), ["README.md", "client-vscode/README.md"]);
  assert.equal(rankPaths(paths, "read")[0], "docs/read.py");
});
