/**
 * The chat panel: a webview view in the "Agent" activity-bar container (and optionally editor
 * tabs). This façade builds its parts (src/chat/: hosting, the panel's state, routing, approvals,
 * turns, slash commands, sessions, checkpoints, attachments) and relays the server's events,
 * usage and status to them; the palette commands call it.
 */
import * as vscode from "vscode";
import type { AgentClient } from "./client";
import type { CompactResult, ConfirmParams, ConfirmResult, CostResult, RestoreWhat } from "./protocol";
import type { ServerStatus } from "./shared/messages";
import { Attachments } from "./chat/attachments";
import { Checkpoints } from "./chat/checkpoints";
import { Hosts } from "./chat/hosts";
import { ModelHeader } from "./chat/modelHeader";
import { Panel } from "./chat/panel";
import { PanelApprovals } from "./chat/panelApprovals";
import { ReadOnlyDocs } from "./chat/readOnly";
import { PlanMode } from "./chat/planMode";
import { route, type ChatParts } from "./chat/router";
import { Sessions } from "./chat/sessions";
import { SlashCommands } from "./chat/slashCommands";
import { Turns } from "./chat/turns";
import type { VirtualDocs } from "./virtualDocs";

export class ChatController implements vscode.Disposable {
  private readonly parts: ChatParts;
  private readonly sessions: Sessions;
  private readonly subs: vscode.Disposable[] = [];

  constructor(
    ctx: vscode.ExtensionContext,
    private readonly agent: AgentClient,
    docs?: VirtualDocs,
  ) {
    const hosts = new Hosts(
      ctx.extensionUri,
      (host, m) => void route(this.parts, host, m),
      () => approvals.visibilityChanged(),
    );
    const panel = new Panel(agent, hosts);
    const approvals = new PanelApprovals(agent, panel, hosts);
    const model = new ModelHeader(agent, panel, hosts);
    const attachments = new Attachments(agent);
    const turns = new Turns(agent, panel, attachments, approvals, () => void model.refresh());
    const sessions = new Sessions(ctx, agent, panel, attachments, turns);
    const plan = new PlanMode(agent, panel, turns);
    const slash = new SlashCommands(agent, panel, hosts, turns, sessions, model, plan);
    const checkpoints = new Checkpoints(agent, panel, sessions, turns, docs);
    const readOnly = new ReadOnlyDocs(agent, panel, docs);
    this.parts = { agent, hosts, panel, approvals, model, attachments, turns, slash, checkpoints, readOnly, plan };
    this.sessions = sessions;
    this.subs.push(
      hosts,
      attachments,
      slash,
      agent.onEvent.event((ev) => {
        slash.heard(ev);
        if (ev.kind === "todos") panel.todos = ev.todos;
        panel.emit({ type: "event", event: ev });
      }),
      agent.onContextUsage.event((u) => {
        panel.usage = u;
        hosts.post({ type: "contextUsage", usage: u });
        model.usage(u);
      }),
      agent.onStatus.event((s) => this.onServerStatus(s)),
      agent.onProgress.event((p) => hosts.post({ type: "progress", message: p.message })),
    );
  }

  // ------------------------------------------------------------- hosting

  /** WebviewViewProvider for the sidebar view. */
  get viewProvider(): vscode.WebviewViewProvider {
    return this.parts.hosts.viewProvider;
  }

  openInEditor(): void {
    this.parts.hosts.openInEditor();
  }

  async reveal(focusInput = true): Promise<void> {
    await this.parts.hosts.reveal();
    if (focusInput) this.parts.hosts.focusInput();
  }

  private onServerStatus(s: ServerStatus): void {
    const { panel, hosts } = this.parts;
    if (s.phase !== "running") panel.usage = undefined; // as the status bar: no meter without a server
    hosts.post({ type: "server", status: s });
    if (s.phase === "restarting" && s.message) this.notice(s.message, "warn");
    if (s.phase === "running") {
      if (s.message) this.notice(s.message, "info");
      void this.sessions.restoreOnStart();
      void this.parts.model.refresh();
      void this.sessions.refreshTodos();
      void this.parts.slash.refreshCommands();
    }
    if (s.phase === "error" && s.message) this.notice(s.message, "error");
    if (s.phase === "error" || s.phase === "stopped") this.sessions.stopWaiting();
  }

  // ------------------------------------------------------ what commands call

  /** `agent/confirm` in the panel, on the call's card (undefined when no chat view is visible). */
  askInPanel(params: ConfirmParams, token?: vscode.CancellationToken, fallback?: () => Promise<ConfirmResult>): Promise<ConfirmResult> | undefined {
    return this.parts.approvals.ask(params, token, fallback);
  }

  notice(markdown: string, level: "info" | "warn" | "error" = "info"): void {
    this.parts.panel.notice(markdown, level);
  }

  stop(): void {
    this.parts.turns.stop();
  }

  /** The palette's Toggle Plan Mode and Approve Plan (the panel's own buttons do the same). */
  async togglePlanMode(): Promise<void> {
    await this.parts.plan.set(this.parts.panel.mode === "plan" ? "act" : "plan");
  }

  approvePlan(): Promise<void> {
    return this.parts.plan.approve();
  }

  compact(instructions?: string): Promise<CompactResult | undefined> {
    return this.parts.slash.compact(instructions);
  }

  /** `/cost` in the panel; the palette's Show Cost asks with `inPanel: false` and shows its own toast. */
  cost(inPanel = true): Promise<CostResult | undefined> {
    return this.parts.slash.cost(inPanel);
  }

  clear(): Promise<void> {
    return this.sessions.clear();
  }

  resume(sessionId: string): Promise<void> {
    return this.sessions.resume(sessionId);
  }

  restore(checkpoint: string, restore: RestoreWhat, prompt: string): Promise<boolean> {
    return this.parts.checkpoints.restore(checkpoint, restore, prompt);
  }

  fork(checkpoint: string): Promise<void> {
    return this.parts.checkpoints.fork(checkpoint);
  }

  /** "Agent: Add Selection to Chat": quote the selection with its file and line range. */
  async addSelection(editor: vscode.TextEditor | undefined): Promise<void> {
    if (!editor) return;
    const quote = this.parts.attachments.addSelection(editor);
    await this.reveal(false);
    this.parts.hosts.post({ type: "insertText", text: quote });
    this.parts.hosts.focusInput();
  }

  dispose(): void {
    this.parts.turns.stop();
    for (const s of this.subs) s.dispose();
  }
}
