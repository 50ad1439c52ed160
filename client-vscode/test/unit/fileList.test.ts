/** Issue 9, point 7: an empty search made before the workspace index is ready is not cached. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { FileList } from "../../src/shared/fileList";

test("an empty first search is asked again at the next keystroke", async () => {
  let ready = false;
  let searches = 0;
  const list = new FileList(async () => {
    searches++;
    return ready ? ["hello.py", "notes.md"] : [];
  });
  assert.deepEqual(await list.paths(), []); // `@`: the index is not ready yet
  ready = true;
  assert.deepEqual(await list.paths(), ["hello.py", "notes.md"]); // `@hel`
  assert.equal(searches, 2);
});

test("a non-empty list is cached for the TTL, then searched again; invalidate forces it", async () => {
  let t = 0;
  let searches = 0;
  const list = new FileList(async () => [`f${++searches}.py`], 15_000, () => t);
  await list.paths();
  t = 10_000;
  assert.deepEqual(await list.paths(), ["f1.py"]);
  t = 16_000;
  assert.deepEqual(await list.paths(), ["f2.py"]);
  list.invalidate();
  assert.deepEqual(await list.paths(), ["f3.py"]);
});
