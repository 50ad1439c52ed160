/**
 * Issue 34: plan mode in the panel. The toggle and `/plan [off]` ask agent/mode and show the server's answer;
 * "Approve plan" switches to act, then sends the turn that carries the plan out; a refused switch sends nothing.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Panel } from "../../src/chat/panel";
import { APPROVE_PROMPT, PlanMode, modeOfArgs } from "../../src/chat/planMode";
import type { Hosts } from "../../src/chat/hosts";
import type { Turns } from "../../src/chat/turns";
import type { AgentClient } from "../../src/client";
import type { ToWebview } from "../../src/shared/messages";

function setup(answer: (params: Record<string, unknown>) => Promise<unknown>) {
  const calls: [string, Record<string, unknown>][] = [];
  const posted: ToWebview[] = [];
  const sent: string[] = [];
  const agent = {
    status: { phase: "running" },
    request: (method: string, params: Record<string, unknown>) => {
      calls.push([method, params]);
      return method === "agent/mode" ? answer(params) : Promise.reject(new Error(`Unhandled method ${method}`));
    },
  } as unknown as AgentClient;
  const panel = new Panel(agent, { post: (m: ToWebview) => posted.push(m) } as unknown as Hosts);
  const turns = { send: async (text: string) => void sent.push(text) } as unknown as Turns;
  return { calls, posted, sent, panel, plan: new PlanMode(agent, panel, turns) };
}

test("/plan and /plan off name the mode; anything else is not a mode", () => {
  assert.equal(modeOfArgs(""), "plan");
  assert.equal(modeOfArgs(" OFF "), "act");
  assert.equal(modeOfArgs("approve"), "act");
  assert.equal(modeOfArgs("maybe"), undefined);
});

test("the toggle asks agent/mode and the views show the server's answer", async () => {
  const s = setup(async (p) => ({ mode: p.mode }));
  assert.equal(await s.plan.set("plan"), true);
  assert.deepEqual(s.calls, [["agent/mode", { mode: "plan" }]]);
  assert.equal(s.panel.mode, "plan");
  assert.ok(s.posted.some((m) => m.type === "mode" && m.mode === "plan"));
  assert.deepEqual(s.sent, []);
});

test("Approve plan: act, then the turn that carries out the plan", async () => {
  const s = setup(async (p) => ({ mode: p.mode }));
  s.panel.setMode("plan");
  await s.plan.approve();
  assert.deepEqual(s.calls, [["agent/mode", { mode: "act" }]]);
  assert.equal(s.panel.mode, "act");
  assert.deepEqual(s.sent, [APPROVE_PROMPT]);
});

test("a switch the server refuses changes nothing and sends no turn", async () => {
  const s = setup(async () => Promise.reject(new Error("unknown mode")));
  s.panel.setMode("plan");
  await s.plan.approve();
  assert.equal(s.panel.mode, "plan");
  assert.deepEqual(s.sent, []);
});
