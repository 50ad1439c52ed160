import assert from "node:assert/strict";
import { test } from "node:test";
import { MESSAGE, maybeShowDemoNotice, SET_KEY, USE_DEMO } from "../../src/demoNotice";
import { __fake, commands } from "./fake-vscode";

function memento() {
  const values = new Map<string, unknown>();
  return {
    get: <T>(key: string) => values.get(key) as T | undefined,
    update: async (key: string, value: unknown) => void values.set(key, value),
    keys: () => [...values.keys()],
  };
}

test("the demo notice is shown once per workspace, with Set API Key and Use Demo Model", async () => {
  __fake.reset();
  const state = memento();
  await maybeShowDemoNotice(state as never, { demo: true });
  await maybeShowDemoNotice(state as never, { demo: true });
  assert.equal(__fake.messages.length, 1);
  assert.equal(__fake.messages[0].message, MESSAGE);
  assert.deepEqual(__fake.messages[0].items, [SET_KEY, USE_DEMO]);
  assert.doesNotMatch(MESSAGE, /initialization option/);
});

test("no notice when a real model answers", async () => {
  __fake.reset();
  await maybeShowDemoNotice(memento() as never, { demo: false });
  assert.equal(__fake.messages.length, 0);
});

test("Set API Key runs the command", async () => {
  __fake.reset();
  __fake.nextChoice = SET_KEY;
  const ran: string[] = [];
  const original = commands.executeCommand;
  commands.executeCommand = (async (id: string) => void ran.push(id)) as never;
  try {
    await maybeShowDemoNotice(memento() as never, { demo: true });
  } finally {
    commands.executeCommand = original;
  }
  assert.deepEqual(ran, ["agentls.setApiKey"]);
});
