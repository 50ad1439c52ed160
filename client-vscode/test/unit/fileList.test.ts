/**
 * The @-mention file list: an empty search is not cached (issue 9, point 7), and an
 * empty or failed search is asked again before the empty list is the answer (issue 24).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { FileList } from "../../src/shared/fileList";

/** Pauses that take no time, recorded; `onPause` runs during each one. */
function pauses(onPause: (n: number) => void = () => undefined) {
  const taken: number[] = [];
  return {
    taken,
    sleep: async (ms: number) => {
      taken.push(ms);
      onPause(taken.length);
    },
  };
}

test("the keystrokes typed while the first search finds nothing get the files once the search finds them", async () => {
  let ready = false;
  let searches = 0;
  const clock = pauses((n) => (ready = n >= 2)); // the workspace's file search is ready after two pauses
  const list = new FileList(
    async () => {
      searches++;
      return ready ? ["notes.md", "hello.py"] : [];
    },
    { sleep: clock.sleep, retryDelaysMs: [250, 500, 1000] },
  );
  // `@`, `@h`, `@he`, `@hel`: four queries while one search runs
  const answers = await Promise.all([list.paths(), list.paths(), list.paths(), list.paths()]);
  for (const a of answers) assert.deepEqual(a, ["hello.py", "notes.md"]);
  assert.equal(searches, 3, "searched, then again after each pause, and shared by all four");
  assert.deepEqual(clock.taken, [250, 500]);
});

test("a search that fails is asked again; the error is reported, never thrown at the caller", async () => {
  let searches = 0;
  const retries: { attempt: number; delayMs: number; error?: unknown }[] = [];
  const list = new FileList(
    async () => {
      if (++searches === 1) throw new Error("search provider not ready");
      return ["hello.py"];
    },
    { sleep: pauses().sleep, onRetry: (r) => retries.push(r) },
  );
  assert.deepEqual(await list.paths(), ["hello.py"]);
  assert.equal(retries.length, 1);
  assert.equal(retries[0].attempt, 1);
  assert.equal((retries[0].error as Error).message, "search provider not ready");
});

test("a workspace without files answers empty after the retries, and the next keystroke searches again", async () => {
  let searches = 0;
  const clock = pauses();
  const retries: unknown[] = [];
  const list = new FileList(
    async () => {
      searches++;
      return [];
    },
    { sleep: clock.sleep, retryDelaysMs: [250, 500], onRetry: (r) => retries.push(r.error) },
  );
  assert.deepEqual(await list.paths(), []);
  assert.equal(searches, 3);
  assert.deepEqual(retries, [undefined, undefined], "found nothing, no error");
  assert.deepEqual(await list.paths(), []); // not cached
  assert.equal(searches, 6);
});

test("a search that keeps failing answers an empty list", async () => {
  const list = new FileList(
    async () => {
      throw new Error("no search");
    },
    { sleep: pauses().sleep, retryDelaysMs: [1, 2] },
  );
  assert.deepEqual(await list.paths(), []);
});

test("a non-empty list is cached for the TTL, then searched again; invalidate forces it", async () => {
  let t = 0;
  let searches = 0;
  const list = new FileList(async () => [`f${++searches}.py`], { ttlMs: 15_000, now: () => t });
  await list.paths();
  t = 10_000;
  assert.deepEqual(await list.paths(), ["f1.py"]);
  t = 16_000;
  assert.deepEqual(await list.paths(), ["f2.py"]);
  list.invalidate();
  assert.deepEqual(await list.paths(), ["f3.py"]);
});

test("the real pauses by default: a first empty search is repeated after a short wait", async () => {
  let searches = 0;
  const list = new FileList(async () => (++searches > 1 ? ["hello.py"] : []));
  const t = Date.now();
  assert.deepEqual(await list.paths(), ["hello.py"]);
  assert.equal(searches, 2);
  assert.ok(Date.now() - t >= 200, "waited before asking again"); // RETRY_DELAYS_MS[0] is 250 ms
});
