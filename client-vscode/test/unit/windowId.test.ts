import assert from "node:assert/strict";
import { test } from "node:test";
import { WINDOW_ID_KEY, windowId } from "../../src/windowId";

function memento(initial: Record<string, unknown> = {}) {
  const values = new Map<string, unknown>(Object.entries(initial));
  return {
    get: <T>(key: string) => values.get(key) as T | undefined,
    update: async (key: string, value: unknown) => void values.set(key, value),
    keys: () => [...values.keys()],
  };
}

test("a window's id is made once and kept in its workspace state: the same after a reload", async () => {
  const state = memento();
  const first = await windowId(state as never);
  assert.match(first, /^[0-9a-f-]{36}$/);
  assert.equal(state.get(WINDOW_ID_KEY), first);
  assert.equal(await windowId(state as never), first);
});

test("windows with their own workspace state have their own ids", async () => {
  assert.notEqual(await windowId(memento() as never), await windowId(memento() as never));
  assert.equal(await windowId(memento({ [WINDOW_ID_KEY]: "kept" }) as never), "kept");
});
