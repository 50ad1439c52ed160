/**
 * A prompt sent while the panel switches conversation (New Chat, a fork) goes out after the switch,
 * into the conversation the panel then shows: never into the one it leaves, never wiped from the
 * panel while the server goes on with it (the e2e's New Chat followed at once by a prompt lost it).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type * as vscode from "vscode";
import type { Attachments } from "../../src/chat/attachments";
import { Checkpoints } from "../../src/chat/checkpoints";
import type { Hosts } from "../../src/chat/hosts";
import { Panel } from "../../src/chat/panel";
import type { PanelApprovals } from "../../src/chat/panelApprovals";
import { Sessions } from "../../src/chat/sessions";
import { Turns } from "../../src/chat/turns";
import type { AgentClient } from "../../src/client";

/** A promise the test settles. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const tick = () => new Promise((r) => setImmediate(r));

/** Panel, real Turns, Sessions and Checkpoints over a server whose answers the test releases. */
function chatOver(answers: Record<string, () => Promise<unknown>>) {
  const calls: string[] = [];
  const agent = {
    status: { phase: "running" },
    log: { info: () => undefined, debug: () => undefined },
    progress: () => ({ dispose: () => undefined }),
    request: (method: string) => {
      calls.push(method);
      return answers[method]?.() ?? Promise.reject(new Error(`Unhandled method ${method}`));
    },
  } as unknown as AgentClient;
  const hosts = { post: () => undefined } as unknown as Hosts;
  const ctx = { workspaceState: { update: async () => undefined } } as unknown as vscode.ExtensionContext;
  const attachments = { collect: async () => ({ attachments: [], labels: [], missing: [] }), forget: () => undefined } as unknown as Attachments;
  const panel = new Panel(agent, hosts);
  const turns = new Turns(agent, panel, attachments, { withdrawAll: () => undefined } as unknown as PanelApprovals, () => undefined);
  const sessions = new Sessions(ctx, agent, panel, attachments, turns);
  const checkpoints = new Checkpoints(agent, panel, sessions, turns);
  const shown = () => panel.transcript.items.map((i) => (i.role === "user" ? `user: ${i.text}` : i.role));
  return { calls, panel, turns, sessions, checkpoints, shown };
}

test("a prompt sent while New Chat is on its way goes to the new conversation and stays in the panel", async () => {
  const created = deferred<{ sessionId: string }>();
  const chat = chatOver({ "agent/newSession": () => created.promise, "agent/chat": async () => ({}) });
  const newChat = chat.sessions.clear();
  const sent = chat.turns.send("a question for the new chat");
  await tick();
  assert.deepEqual(chat.calls, ["agent/newSession"], "the prompt waits for the new conversation");
  created.resolve({ sessionId: "s2" });
  await Promise.all([newChat, sent]);
  assert.deepEqual(chat.calls, ["agent/newSession", "agent/chat"]);
  assert.deepEqual(chat.shown().slice(0, 2), ["notice", "user: a question for the new chat"], "shown after the switch, not wiped by it");
});

test("two prompts released by one switch: the first runs, the second is refused, not sent as well", async () => {
  const created = deferred<{ sessionId: string }>();
  const answered = deferred<object>();
  const chat = chatOver({ "agent/newSession": () => created.promise, "agent/chat": () => answered.promise });
  void chat.sessions.clear();
  const first = chat.turns.send("first");
  const second = chat.turns.send("second");
  created.resolve({ sessionId: "s2" });
  await second;
  assert.deepEqual(chat.calls, ["agent/newSession", "agent/chat"]);
  assert.ok(chat.panel.transcript.items.some((i) => i.role === "notice" && /already running/.test(i.markdown)));
  answered.resolve({});
  await first;
  assert.equal(chat.turns.busy, false);
});

test("a prompt sent while a fork is on its way goes to the fork", async () => {
  const forked = deferred<{ sessionId: string; transcript: [] }>();
  const chat = chatOver({
    "agent/fork": () => forked.promise, "agent/chat": async () => ({}),
    "agent/todos": async () => ({ todos: [] }), "agent/mode": async () => ({ mode: "act" }), "agent/checkpoints": async () => ({ checkpoints: [] }),
  });
  const fork = chat.checkpoints.fork("turn-1");
  const sent = chat.turns.send("go on in the fork");
  await tick();
  assert.deepEqual(chat.calls, ["agent/fork"]);
  forked.resolve({ sessionId: "s3", transcript: [] });
  await Promise.all([fork, sent]);
  assert.equal(chat.calls.indexOf("agent/chat") > chat.calls.indexOf("agent/fork"), true);
  assert.ok(chat.shown().includes("user: go on in the fork"));
});
