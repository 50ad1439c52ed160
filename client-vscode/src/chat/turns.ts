/**
 * A turn: the prompt with its attachments goes out as `agent/chat`, its events stream in (the
 * controller relays them), and it ends done, stopped or failed. One at a time; Stop cancels it.
 * A prompt sent while the panel switches conversation (new, resume, fork, rewind) waits for the
 * switch and goes to the conversation it shows, never to the one it leaves.
 */
import * as vscode from "vscode";
import type { AgentClient } from "../client";
import { ErrorCodes, Methods, type ChatParams, type ChatResult } from "../protocol";
import { formatUsage } from "../shared/format";
import type { Attachments, Collected } from "./attachments";
import type { Panel } from "./panel";
import type { PanelApprovals } from "./panelApprovals";

const STOP_GRACE_MS = 10_000;

export class Turns {
  private running: vscode.CancellationTokenSource | undefined;
  private switching: Promise<unknown> = Promise.resolve();
  private collecting = false; // a prompt's attachments are being read (it is not running yet)
  private seq = 0;

  constructor(
    private readonly agent: AgentClient,
    private readonly panel: Panel,
    private readonly attachments: Attachments,
    private readonly approvals: PanelApprovals,
    private readonly after: () => void, // a turn ended (the model label may have changed)
  ) {}

  get busy(): boolean {
    return !!this.running;
  }

  /**
   * `work` switches the conversation the panel shows: prompts sent until it settles wait for it
   * (one sent just after New Chat would otherwise run in the old conversation, or be wiped from the
   * panel by the new one while the server goes on with it).
   */
  whileSwitching<T>(work: Promise<T>): Promise<T> {
    this.switching = Promise.allSettled([this.switching, work]);
    return work;
  }

  async send(text: string): Promise<void> {
    const prompt = text.trim();
    if (!prompt) return;
    for (let gate = this.switching; ; gate = this.switching) {
      await gate;
      if (gate === this.switching) break; // no other switch began meanwhile
    }
    if (this.running || this.collecting) {
      this.panel.notice("A turn is already running; stop it or wait.", "warn");
      return;
    }
    this.collecting = true; // two prompts released by one switch: the second is refused, not sent too
    let collected: Collected;
    try {
      collected = await this.attachments.collect(prompt);
    } finally {
      this.collecting = false; // in the same step as `running` is set below
    }
    const { attachments, labels, missing } = collected;
    this.panel.emit({ type: "userMessage", text: prompt, attachments: labels });
    if (missing.length) this.panel.notice(`Not found in the workspace: ${missing.map((m) => `\`@${m}\``).join(", ")}`, "warn");
    this.panel.emit({ type: "turnStarted" });
    const cts = new vscode.CancellationTokenSource();
    this.running = cts;
    this.panel.busy = true;
    const workDoneToken = `agentls-turn-${Date.now()}-${++this.seq}`;
    const progressSub = this.agent.progress(workDoneToken);
    const params: ChatParams = { prompt, workDoneToken };
    if (attachments.length) params.attachments = attachments;
    try {
      // After Stop the server answers RequestCancelled; if it never does, give up locally.
      const stopped = new Promise<never>((_, reject) =>
        cts.token.onCancellationRequested(() => setTimeout(() => reject(new vscode.CancellationError()), STOP_GRACE_MS)),
      );
      const r = await Promise.race([this.agent.request<ChatResult>(Methods.chat, params, cts.token), stopped]);
      const footer = r?.usage ? formatUsage(r.usage) : undefined;
      this.panel.emit({ type: "turnEnded", outcome: "done", usageText: footer });
    } catch (e) {
      const err = e as { code?: number; message?: string };
      if (cts.token.isCancellationRequested || err.code === ErrorCodes.RequestCancelled || e instanceof vscode.CancellationError) {
        this.panel.emit({ type: "turnEnded", outcome: "cancelled", message: "Stopped." });
      } else {
        let message = err.message ?? String(e);
        if (/connection got disposed|connection.*(closed|disposed)|Client is not running/i.test(message)) {
          message = "The agent server stopped during this turn; the turn was lost.";
        }
        this.panel.emit({ type: "turnEnded", outcome: "error", message });
      }
    } finally {
      // a question of this turn still open (the turn was stopped, the server went away): withdrawn
      this.approvals.withdrawAll();
      progressSub.dispose();
      cts.dispose();
      if (this.running === cts) {
        this.running = undefined;
        this.panel.busy = false;
      }
      this.after();
    }
  }

  stop(): void {
    this.running?.cancel();
  }
}
