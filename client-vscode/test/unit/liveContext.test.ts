/** Issue 9, point 4: Show Context follows every change and is not blank after a reload. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ContextResult } from "../../src/protocol";
import { changesContext, LiveContext } from "../../src/shared/liveContext";

const result = (used: number): ContextResult => ({
  model: "m",
  demo: false,
  modelWindow: null,
  window: 30_000,
  effectiveWindow: 28_000,
  used,
  utilization: Math.round((used / 28_000) * 10_000) / 10_000,
  level: "ok",
  nextRequest: "none",
  categories: { system: 1, tools: 1, instructions: 0, user: 1, assistant: 1, toolResults: 1 },
  layers: [],
  placeholders: [],
  mcpTools: [],
  toolListChanges: 0,
  autoCompactAt: 0.85,
  instructions: [],
  instructionChanges: 0,
  warnings: [],
});

test("once shown, every change re-renders it with the server's current numbers", async () => {
  let used = 1_120;
  const published: string[] = [];
  const live = new LiveContext(async () => result(used), (md) => published.push(md));
  assert.equal(live.changed(), undefined); // nobody is looking yet: no request
  assert.match(await live.render(), /4% · 1\.1K\/28K/);
  used = 19_040;
  await live.changed();
  assert.match(published.at(-1)!, /68% · 19K\/28K/);
});

test("changes arriving during a fetch end with the newest state, one fetch at a time", async () => {
  let used = 1_000;
  let inFlight = 0;
  let most = 0;
  const published: string[] = [];
  const live = new LiveContext(async () => {
    inFlight++;
    most = Math.max(most, inFlight);
    await new Promise((r) => setImmediate(r));
    inFlight--;
    return result(used);
  }, (md) => published.push(md));
  await live.render();
  const first = live.changed();
  used = 14_000;
  live.changed();
  used = 28_000;
  live.changed();
  await first;
  assert.equal(most, 1);
  assert.match(published.at(-1)!, /100% · 28K\/28K/);
});

test("after a reload the restored tab renders on demand, and says so while the server is not up", async () => {
  const live = new LiveContext(async () => {
    throw new Error("server starting");
  }, () => undefined);
  assert.match(await live.render(), /Unavailable: server starting[\s\S]*refreshes by itself/);
});

test("issue 33.6: an instruction or tool change re-renders it in the turn that announces it", () => {
  const base = { turnId: "t", changes: 1, added: [], removed: [] };
  assert.ok(changesContext({ ...base, kind: "instructionsChanged", changed: ["AGENTS.md"], delivery: "appended" }));
  assert.ok(changesContext({ ...base, kind: "toolsChanged" }));
  assert.ok(!changesContext({ turnId: "t", kind: "textDelta", text: "x" }));
});
