/** The chat panel's parts over a scripted server (answers by method), the views recorded. */
import type * as vscode from "vscode";
import type { Attachments } from "../../src/chat/attachments";
import { Checkpoints } from "../../src/chat/checkpoints";
import type { Hosts } from "../../src/chat/hosts";
import { Panel } from "../../src/chat/panel";
import { Sessions } from "../../src/chat/sessions";
import type { Turns } from "../../src/chat/turns";
import type { AgentClient } from "../../src/client";
import type { ToWebview } from "../../src/shared/messages";

export type Answers = Record<string, (params: Record<string, unknown>) => Promise<unknown>>;

export function scriptedChat(answers: Answers) {
  const calls: [string, Record<string, unknown>][] = [];
  const posted: ToWebview[] = [];
  const agent = {
    status: { phase: "running" },
    log: { info: () => undefined, debug: () => undefined },
    request: (method: string, params: Record<string, unknown>) => {
      calls.push([method, params]);
      const answer = answers[method];
      return answer ? answer(params) : Promise.reject(new Error(`Unhandled method ${method}`));
    },
  } as unknown as AgentClient;
  const hosts = { post: (m: ToWebview) => posted.push(m) } as unknown as Hosts;
  const ctx = { workspaceState: { update: async () => undefined } } as unknown as vscode.ExtensionContext;
  const turns = { busy: false, stop: () => undefined, whileSwitching: <T>(work: Promise<T>) => work } as unknown as Turns;
  const panel = new Panel(agent, hosts);
  const sessions = new Sessions(ctx, agent, panel, { forget: () => undefined } as unknown as Attachments, turns);
  return { calls, posted, panel, sessions, checkpoints: new Checkpoints(agent, panel, sessions, turns) };
}
