/**
 * Which conversation the panel shows: a new chat, one resumed from the history, and after a
 * reload the one the server holds, read from its transcript of record (no copy of the
 * transcript is stored in the extension or the webview). The task list and the rewound marks
 * come with it.
 */
import * as vscode from "vscode";
import type { AgentClient } from "../client";
import {
  Methods,
  type CheckpointInfo,
  type CheckpointsResult,
  type NewSessionResult,
  type ResumeResult,
  type SessionsResult,
  type ModeResult,
  type TodosResult,
} from "../protocol";
import * as T from "../shared/transcript";
import { fromSession } from "../shared/transcriptOfRecord";
import type { Attachments } from "./attachments";
import type { Panel } from "./panel";
import type { Turns } from "./turns";

/** The transcript an earlier extension kept in the workspace state (now read from the server). */
const OLD_STORE_KEY = "agentls.transcript.v1";

export class Sessions {
  private restored = false; // the server's record was asked for once since the extension started
  private shown = 0; // conversations shown: one shown while the record was on its way wins
  private shownId: string | undefined; // the server's id of the conversation the panel shows

  constructor(
    private readonly ctx: vscode.ExtensionContext,
    private readonly agent: AgentClient,
    private readonly panel: Panel,
    private readonly attachments: Attachments,
    private readonly turns: Turns,
  ) {
    panel.loading = true; // until the server answers (or cannot)
    void ctx.workspaceState.update(OLD_STORE_KEY, undefined);
  }

  /**
   * The server is up (a window reload, VS Code opening, or the server restarted): the panel asks it
   * which conversation it continues and shows that one, as the transcript of record has it, with the
   * turns a restore took back greyed. It never assumes: after a restart that opened another
   * conversation than the one shown, the server's is shown. At the first start, notices posted
   * meanwhile stay after it; a prompt sent meanwhile, or another conversation, means the user went
   * on without it.
   */
  async restoreOnStart(): Promise<void> {
    const first = !this.restored;
    this.restored = true;
    const shown = this.shown;
    const restored: T.Transcript = T.emptyTranscript();
    let current: string | null = null;
    try {
      current = (await this.agent.request<SessionsResult>(Methods.sessions, {})).current;
      if (!first && current === this.shownId) return; // the restarted server goes on with the one shown
      if (current) {
        restored.items = fromSession((await this.agent.request<ResumeResult>(Methods.resume, { sessionId: current })).transcript).items;
        if (restored.items.length) T.markRewound(restored, rewoundIds(await this.checkpoints()));
      }
    } catch (e) {
      this.agent.log.info(`the conversation's transcript of record is not available: ${(e as Error).message ?? e}`);
      if (!first) return;
    }
    if (this.shown !== shown) return; // another conversation is shown already
    const now = this.panel.transcript.items;
    if (first && now.some((it) => it.role !== "notice")) {
      this.shownId = current ?? undefined;
      this.panel.loading = false; // a prompt went out meanwhile: the views show it already
      return;
    }
    this.show({ items: first ? [...restored.items, ...now] : restored.items }, current ?? undefined);
    if (!first) this.panel.notice("The agent server went on with another conversation than the one shown; it is shown now.", "info");
  }

  /** The server could not start: the views stop waiting for its record (asked once it runs). */
  stopWaiting(): void {
    if (this.panel.loading) this.panel.show(this.panel.transcript);
  }

  /** A new conversation; the current one stays in the history (Agent: Show Chat History). */
  clear(): Promise<void> {
    return this.turns.whileSwitching(this.startNew());
  }

  private async startNew(): Promise<void> {
    this.turns.stop();
    let id: string;
    try {
      id = (await this.agent.request<NewSessionResult>(Methods.newSession, {})).sessionId;
    } catch (e) {
      void vscode.window.showWarningMessage(`Agent: the server could not start a new chat: ${(e as Error).message ?? e}`);
      return;
    }
    this.show(T.emptyTranscript(), id);
    this.panel.setTodos([]);
    this.panel.setMode("act"); // a new conversation acts until plan mode is turned on (agent/mode)
    this.panel.notice("New chat. The previous conversation is kept: Agent: Show Chat History resumes it.", "info");
  }

  /** Continue a conversation from the history: the server restores it, the panel shows its transcript. */
  resume(sessionId: string): Promise<void> {
    return this.turns.whileSwitching(this.resumeNow(sessionId));
  }

  private async resumeNow(sessionId: string): Promise<void> {
    if (this.turns.busy) {
      void vscode.window.showWarningMessage("Agent: stop the running turn before switching conversations.");
      return;
    }
    try {
      const r = await this.agent.request<ResumeResult>(Methods.resume, { sessionId });
      const resumed = fromSession(r.transcript);
      // as it was live: the turns a restore took back greyed (the badges and notes come with the record)
      if (resumed.items.length) T.markRewound(resumed, rewoundIds(await this.checkpoints()));
      this.show(resumed, r.sessionId);
      await this.refreshTodos();
    } catch (e) {
      void vscode.window.showWarningMessage(`Agent: could not resume that conversation: ${(e as Error).message ?? e}`);
    }
  }

  /** Another transcript in every view; the selections kept for the old one are dropped. */
  show(transcript: T.Transcript, sessionId?: string): void {
    this.shown++;
    if (sessionId !== undefined) this.shownId = sessionId;
    this.attachments.forget();
    this.panel.show(transcript);
  }

  /**
   * Greys the turns whose file changes a restore took back. `checkpoints`: the list as
   * agent/checkpoints gives it, when the caller has it already (a rewind's result).
   */
  async markRewound(checkpoints?: CheckpointInfo[]): Promise<void> {
    try {
      T.markRewound(this.panel.transcript, rewoundIds(checkpoints ?? (await this.checkpoints())));
      this.show(this.panel.transcript);
    } catch {
      // the panel keeps its marks; the restore itself was reported
    }
  }

  private async checkpoints(): Promise<CheckpointInfo[]> {
    return (await this.agent.request<CheckpointsResult>(Methods.checkpoints, {})).checkpoints;
  }

  /** The conversation's task list and its mode (plan or act), after a start, a resume, a rewind or a fork. */
  async refreshTodos(): Promise<void> {
    try {
      this.panel.setTodos((await this.agent.request<TodosResult>(Methods.todos, {})).todos);
    } catch {
      /* an older server: no task list */
    }
    try {
      this.panel.setMode((await this.agent.request<ModeResult>(Methods.mode, {})).mode);
    } catch {
      /* an older server: no plan mode */
    }
  }
}

function rewoundIds(checkpoints: CheckpointInfo[]): Set<string> {
  return new Set(checkpoints.filter((c) => c.rewound).map((c) => c.id));
}
