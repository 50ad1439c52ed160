/**
 * The chat panel: a webview view in the "Agent" activity-bar container (and
 * optionally an editor tab), and the controller that runs turns, keeps the
 * transcript store and relays server events.
 */
import * as vscode from "vscode";
import type { AgentClient } from "./client";
import {
  ErrorCodes,
  Methods,
  type Attachment,
  type ChatParams,
  type ChatResult,
  type CommandInfo,
  type CommandsResult,
  type CompactResult,
  type ContextUsage,
  type CostResult,
  type CheckpointDiffResult,
  type CheckpointsResult,
  type ForkResult,
  type McpServersResult,
  type PermissionsResult,
  type RestoreWhat,
  type RewindResult,
  type ResumeResult,
  type Todo,
  type TodosResult,
  type ToolResult,
} from "./protocol";
import type { VirtualDocs } from "./virtualDocs";
import { compactMarkdown, costMarkdown, formatUsage } from "./shared/format";
import type { FromWebview, ServerStatus, ToWebview } from "./shared/messages";
import { mcpMarkdown } from "./shared/mcp";
import { FileList } from "./shared/fileList";
import { mentionedPaths, rankPaths } from "./shared/mentions";
import { linesLabel, selectedSpan } from "./shared/selection";
import { ModelChoice } from "./modelChoice";
import { SLASH_COMMANDS, customUsage, type SlashName } from "./shared/slash";
import * as T from "./shared/transcript";
import { previewText, restoreQuestion, restoresCode, rewindSummary } from "./shared/checkpoints";
import { preapproveRewind } from "./approvals";

const STORE_KEY = "agentls.transcript.v1";
const MAX_ATTACHMENT_CHARS = 200_000;
const STOP_GRACE_MS = 10_000;
const FILE_EXCLUDE = "{**/node_modules/**,**/.git/**,**/.venv/**,**/venv/**,**/__pycache__/**,**/dist/**,**/build/**,**/out/**}";

export function nonce(): string {
  const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  let s = "";
  for (let i = 0; i < 32; i++) s += chars[Math.floor(Math.random() * chars.length)];
  return s;
}

export function chatHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const n = nonce();
  const js = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, "dist", "webview.js"));
  const css = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, "dist", "webview.css"));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource} 'nonce-${n}'`,
    `script-src 'nonce-${n}'`,
    `img-src ${webview.cspSource} data:`,
    `font-src ${webview.cspSource}`,
  ].join("; ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${css}" nonce="${n}">
<title>Agent Chat</title>
</head>
<body>
<div id="app" data-nonce="${n}"></div>
<script nonce="${n}" src="${js}"></script>
</body>
</html>`;
}

/**
 * The model label from agent/contextUsage (`model`, `demo`); read defensively,
 * since an older server may not send them.
 */
export function modelLabelOf(u: unknown): string | undefined {
  const x = u as { model?: unknown; demo?: unknown };
  if (x?.demo === true) return "demo model (offline)";
  return typeof x?.model === "string" && x.model ? x.model : undefined;
}

interface Host {
  webview: vscode.Webview;
  visible(): boolean;
}

export class ChatController implements vscode.Disposable {
  private transcript: T.Transcript;
  private readonly hosts = new Set<Host>();
  private running: vscode.CancellationTokenSource | undefined;
  private pending: Attachment[] = [];
  private readonly files = new FileList(
    async () => {
      const t = Date.now();
      this.agent.log.debug("mention search: findFiles started");
      const uris = await vscode.workspace.findFiles("**/*", FILE_EXCLUDE, 5000);
      this.agent.log.debug(`mention search: findFiles found ${uris.length} files in ${Date.now() - t} ms`);
      return uris.map((u) => vscode.workspace.asRelativePath(u, false));
    },
    {
      onRetry: ({ attempt, delayMs, error }) =>
        this.agent.log.debug(
          `mention search: ${error ? `findFiles failed (${(error as Error)?.message ?? error})` : "no files found"}; retry ${attempt} in ${delayMs} ms`,
        ),
    },
  );
  private saveTimer: NodeJS.Timeout | undefined;
  private turnSeq = 0;
  private compactionReported = false;
  private labelFromUsage = false;
  modelLabel = "";
  private readonly models: ModelChoice;
  private modelsKey = ""; // model|window of the last list sent to the picker
  private view: vscode.WebviewView | undefined;
  private readonly subs: vscode.Disposable[] = [];
  private todos: Todo[] = [];
  private commands: CommandInfo[] = [];

  constructor(
    private readonly ctx: vscode.ExtensionContext,
    private readonly agent: AgentClient,
    private readonly docs?: VirtualDocs,
  ) {
    this.models = new ModelChoice(agent, (m) => this.post(m));
    this.transcript = { items: ctx.workspaceState.get<T.TranscriptItem[]>(STORE_KEY, []) };
    T.settle(this.transcript, "Interrupted (the window was reloaded).");
    this.subs.push(
      agent.onEvent.event((ev) => {
        if (ev.kind === "compactionFinished") this.compactionReported = true;
        if (ev.kind === "todos") this.todos = ev.todos;
        T.applyEvent(this.transcript, ev);
        this.post({ type: "event", event: ev });
        this.scheduleSave();
      }),
      agent.onContextUsage.event((u: ContextUsage) => {
        this.post({ type: "contextUsage", usage: u });
        const label = modelLabelOf(u);
        if (label) this.labelFromUsage = true;
        if (label && label !== this.modelLabel) {
          this.modelLabel = label;
          this.post({ type: "model", label });
        }
        // the picker shows the model that answers now, from the list it came with (a new
        // endpoint's list arrives with its model and window)
        const listKey = `${label}|${u.modelWindow ?? ""}`;
        if (label && listKey !== this.modelsKey) {
          this.modelsKey = listKey;
          void this.models.refresh();
        }
      }),
      agent.onStatus.event((s) => this.onServerStatus(s)),
      this.watchFiles(),
      this.watchCommands(),
      agent.onProgress.event((p) => this.post({ type: "progress", message: p.message })),
    );
  }

  // ------------------------------------------------------------- hosting

  /** WebviewViewProvider for the sidebar view. */
  readonly viewProvider: vscode.WebviewViewProvider = {
    resolveWebviewView: (view) => {
      this.view = view;
      const host = this.attach(view.webview, () => view.visible);
      view.onDidDispose(() => {
        this.hosts.delete(host);
        if (this.view === view) this.view = undefined;
      });
    },
  };

  openInEditor(): void {
    const panel = vscode.window.createWebviewPanel(
      "agentls.chatPanel",
      "Agent Chat",
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
      { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [vscode.Uri.joinPath(this.ctx.extensionUri, "dist")] },
    );
    panel.iconPath = vscode.Uri.joinPath(this.ctx.extensionUri, "media", "agent.svg");
    const host = this.attach(panel.webview, () => panel.visible);
    panel.onDidDispose(() => this.hosts.delete(host));
  }

  private attach(webview: vscode.Webview, visible: () => boolean): Host {
    webview.options = { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(this.ctx.extensionUri, "dist")] };
    webview.html = chatHtml(webview, this.ctx.extensionUri);
    const host: Host = { webview, visible };
    this.hosts.add(host);
    webview.onDidReceiveMessage((m: FromWebview) => this.onMessage(host, m), undefined, this.subs);
    return host;
  }

  async reveal(focusInput = true): Promise<void> {
    if (this.view) this.view.show(false);
    else await vscode.commands.executeCommand("agentls.chat.focus");
    if (focusInput) this.post({ type: "focusInput" });
  }

  private post(m: ToWebview, only?: Host): void {
    for (const h of only ? [only] : this.hosts) void h.webview.postMessage(m);
  }

  private onServerStatus(s: ServerStatus): void {
    this.post({ type: "server", status: s });
    if (s.phase === "restarting" && s.message) this.notice(s.message, "warn");
    if (s.phase === "running") {
      if (s.message) this.notice(s.message, "info");
      void this.refreshModel();
      void this.refreshTodos();
      void this.refreshCommands();
    }
    if (s.phase === "error" && s.message) this.notice(s.message, "error");
  }

  async refreshModel(): Promise<void> {
    if (this.labelFromUsage) return;
    try {
      const c = await this.agent.request<CostResult>(Methods.cost, {});
      if (c.model && c.model !== this.modelLabel) {
        this.modelLabel = c.model;
        this.post({ type: "model", label: c.model });
      }
    } catch {
      /* not fatal */
    }
  }

  // ------------------------------------------------------------ messages

  private async onMessage(host: Host, m: FromWebview): Promise<void> {
    switch (m.type) {
      case "ready":
        this.post(
          {
            type: "init",
            items: this.transcript.items,
            busy: !!this.running,
            server: this.agent.status,
            modelLabel: this.modelLabel,
          },
          host,
        );
        this.post({ type: "todos", todos: this.todos }, host);
        this.post({ type: "commands", commands: this.commands }, host);
        void this.models.refresh();
        return;
      case "setModel":
        await this.models.choose(m.model);
        return;
      case "send":
        await this.send(m.text);
        return;
      case "stop":
        this.stop();
        return;
      case "command":
        await this.runCommand(m.name, m.args);
        return;
      case "customCommand":
        await this.runCustom(m.name, m.args);
        return;
      case "mentionQuery": {
        const t = Date.now();
        this.agent.log.debug(`mention #${m.seq} "${m.query}": received`);
        const items = await this.findFiles(m.query);
        this.agent.log.debug(`mention #${m.seq} "${m.query}": answered with ${items.length} items in ${Date.now() - t} ms`);
        this.post({ type: "mentionResults", query: m.query, items, seq: m.seq }, host);
        return;
      }
      case "copy":
        await vscode.env.clipboard.writeText(m.text);
        void vscode.window.setStatusBarMessage("Copied to the clipboard", 2000);
        return;
      case "openFile": {
        const uri = await this.resolveWorkspacePath(m.path);
        if (!uri) return;
        const line = m.line ? Math.max(0, m.line - 1) : undefined;
        const selection = line !== undefined ? new vscode.Range(line, 0, line, 0) : undefined;
        await vscode.window.showTextDocument(uri, { preview: true, selection });
        return;
      }
      case "toolResult":
        try {
          const result = await this.agent.request<ToolResult>(Methods.toolResult, { toolUseId: m.toolUseId });
          this.post({ type: "toolResult", toolUseId: m.toolUseId, result }, host);
        } catch (e) {
          this.post({ type: "toolResult", toolUseId: m.toolUseId, error: (e as Error).message ?? String(e) }, host);
        }
        return;
      case "openOriginal":
        await this.openOriginal(m.toolUseId);
        return;
      case "openSummary":
        await this.openReadOnly(`/Compaction summary.md`, `<!-- ${m.label} -->\n\n${m.summary}\n`, "markdown");
        return;
      case "restartServer":
        await vscode.commands.executeCommand("agentls.restartServer");
        return;
      case "restore":
        await this.restore(m.checkpoint, m.restore, m.prompt);
        return;
    }
  }

  // ------------------------------------------------------------ checkpoints

  /**
   * Restore (code / conversation / both) to before a message: the diff is shown first (code),
   * then a modal asks, naming files changed outside the agent. Saying yes there also answers
   * the server's own conflict question (agent/confirm kind "rewind") for this restore.
   */
  async restore(checkpoint: string, restore: RestoreWhat, prompt: string): Promise<boolean> {
    if (this.running) {
      void vscode.window.showWarningMessage("Agent: stop the running turn before restoring.");
      return false;
    }
    let closePreview: (() => Promise<void>) | undefined;
    try {
      let diff: CheckpointDiffResult | undefined;
      if (restoresCode(restore)) {
        diff = await this.agent.request<CheckpointDiffResult>(Methods.checkpointDiff, { checkpoint });
        closePreview = await this.showPreview(checkpoint, previewText(diff));
      }
      const question = restoreQuestion(prompt, restore, diff);
      const choice = await vscode.window.showWarningMessage(question.message, { modal: true, detail: question.detail }, question.button);
      if (choice !== question.button) return false;
      const release = preapproveRewind(checkpoint);
      let result: RewindResult;
      try {
        result = await this.agent.request<RewindResult>(Methods.rewind, { checkpoint, restore });
      } finally {
        release();
      }
      if (result.transcript) {
        this.show(T.fromSession(result.transcript));
        await this.refreshTodos(); // the task list as it was before that message (saved with the conversation)
      }
      await this.refreshRewound();
      this.notice(rewindSummary(result), result.cancelled ? "warn" : "info");
      return !result.cancelled;
    } catch (e) {
      this.notice(`Restore failed: ${(e as Error).message ?? e}`, "error");
      return false;
    } finally {
      if (closePreview) await closePreview();
    }
  }

  /** Start a new session from the conversation before a message (Agent: Checkpoints → Fork). */
  async fork(checkpoint: string): Promise<void> {
    try {
      const r = await this.agent.request<ForkResult>(Methods.fork, { checkpoint });
      this.show(T.fromSession(r.transcript));
      await this.refreshTodos();
      await this.refreshRewound();
      this.notice("Forked: a new chat holds the conversation up to that message; the old one stays in the history.", "info");
    } catch (e) {
      this.notice(`Fork failed: ${(e as Error).message ?? e}`, "error");
    }
  }

  /** Grey the tool cards of turns whose file changes a restore took back. */
  async refreshRewound(): Promise<void> {
    try {
      const { checkpoints } = await this.agent.request<CheckpointsResult>(Methods.checkpoints, {});
      T.markRewound(this.transcript, new Set(checkpoints.filter((c) => c.rewound).map((c) => c.id)));
      this.show(this.transcript);
    } catch {
      // the panel keeps its marks; the restore itself was reported
    }
  }

  private async showPreview(checkpoint: string, text: string): Promise<() => Promise<void>> {
    if (!this.docs) return async () => undefined;
    const uri = this.docs.set(`/checkpoint/${checkpoint}/restore preview.diff`, text);
    let doc = await vscode.workspace.openTextDocument(uri);
    doc = await vscode.languages.setTextDocumentLanguage(doc, "diff");
    await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: true });
    return async () => {
      for (const group of vscode.window.tabGroups.all) {
        for (const tab of group.tabs) {
          if (tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === uri.toString()) {
            await vscode.window.tabGroups.close(tab).then(undefined, () => undefined);
          }
        }
      }
      this.docs?.delete(uri);
    };
  }

  async runCommand(name: SlashName, args: string): Promise<void> {
    switch (name) {
      case "compact":
        await this.compact(args || undefined);
        return;
      case "cost":
        await this.cost();
        return;
      case "clear":
      case "new":
        await this.clear();
        return;
      case "sessions":
        await vscode.commands.executeCommand("agentls.showHistory");
        return;
      case "context":
        await vscode.commands.executeCommand("agentls.showContext");
        return;
      case "mcp":
        await this.mcpServers();
        return;
      case "permissions":
        await this.permissions();
        return;
      case "help": {
        await this.refreshCommands();
        const custom = this.commands.map((c) => `- \`${customUsage(c)}\` — ${c.description} (${c.source})`);
        this.notice(
          [...SLASH_COMMANDS.map((c) => `- \`${c.usage}\` — ${c.description}`), ...custom, "- `@path` — attach a workspace file"].join("\n") +
            (custom.length ? "" : "\n\nCustom commands: Markdown files in `.agents/commands/` (`$ARGUMENTS` takes what follows the command)."),
          "info",
        );
        return;
      }
    }
  }

  /** A custom command: the server expands its file (`$ARGUMENTS`), the prompt is sent as typed text would be. */
  async runCustom(name: string, args: string): Promise<void> {
    let prompt: string;
    try {
      prompt = (await this.agent.request<{ prompt: string }>(Methods.expandCommand, { name, arguments: args })).prompt;
    } catch (e) {
      this.notice(`\`/${name}\` failed: ${(e as Error).message ?? e}`, "error");
      return;
    }
    await this.send(prompt);
  }

  async refreshTodos(): Promise<void> {
    try {
      this.todos = (await this.agent.request<TodosResult>(Methods.todos, {})).todos;
      this.post({ type: "todos", todos: this.todos });
    } catch {
      /* an older server: no task list */
    }
  }

  async refreshCommands(): Promise<void> {
    try {
      this.commands = (await this.agent.request<CommandsResult>(Methods.commands, {})).commands;
      this.post({ type: "commands", commands: this.commands });
    } catch {
      /* an older server: no custom commands */
    }
  }

  async permissions(): Promise<void> {
    try {
      const { rules } = await this.agent.request<PermissionsResult>(Methods.permissions, {});
      const rows = rules.map((r) => `| ${r.decision} | \`${r.rule.replace(/\|/g, "\\|")}\` | ${r.source} |`);
      this.notice(
        rules.length
          ? ["**Permission rules** (deny wins over ask wins over allow)", "", "| | Rule | Written in |", "|---|---|---|", ...rows].join("\n")
          : "No permission rules yet: add them in `agentls.permissions` or `.agents/settings.json`, or answer an approval with **Always**.",
        "info",
      );
    } catch (e) {
      this.notice(`Permission rules are not available: ${(e as Error).message ?? e}`, "warn");
    }
  }

  notice(markdown: string, level: "info" | "warn" | "error" = "info"): void {
    T.addNotice(this.transcript, markdown, level);
    this.post({ type: "notice", markdown, level });
    this.scheduleSave();
  }

  // ----------------------------------------------------------------- turns

  get busy(): boolean {
    return !!this.running;
  }

  async send(text: string): Promise<void> {
    const prompt = text.trim();
    if (!prompt) return;
    if (this.running) {
      this.notice("A turn is already running; stop it or wait.", "warn");
      return;
    }
    const { attachments, labels, missing } = await this.collectAttachments(prompt);
    T.addUser(this.transcript, prompt, labels);
    this.post({ type: "userMessage", text: prompt, attachments: labels });
    if (missing.length) this.notice(`Not found in the workspace: ${missing.map((m) => `\`@${m}\``).join(", ")}`, "warn");
    T.startTurn(this.transcript);
    this.post({ type: "turnStarted" });
    const cts = new vscode.CancellationTokenSource();
    this.running = cts;
    const workDoneToken = `agentls-turn-${Date.now()}-${++this.turnSeq}`;
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
      T.endTurn(this.transcript, "done", undefined, footer);
      this.post({ type: "turnEnded", outcome: "done", usageText: footer });
    } catch (e) {
      const err = e as { code?: number; message?: string };
      if (cts.token.isCancellationRequested || err.code === ErrorCodes.RequestCancelled || e instanceof vscode.CancellationError) {
        T.endTurn(this.transcript, "cancelled", "Stopped.");
        this.post({ type: "turnEnded", outcome: "cancelled", message: "Stopped." });
      } else {
        let message = err.message ?? String(e);
        if (/connection got disposed|connection.*(closed|disposed)|Client is not running/i.test(message)) {
          message = "The agent server stopped during this turn; the turn was lost.";
        }
        T.endTurn(this.transcript, "error", message);
        this.post({ type: "turnEnded", outcome: "error", message });
      }
    } finally {
      progressSub.dispose();
      cts.dispose();
      if (this.running === cts) this.running = undefined;
      this.save();
      void this.refreshModel();
    }
  }

  stop(): void {
    this.running?.cancel();
  }

  async compact(instructions?: string): Promise<CompactResult | undefined> {
    try {
      this.compactionReported = false;
      const r = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: "Agent: compacting the conversation…" },
        () => this.agent.request<CompactResult>(Methods.compact, instructions ? { instructions } : {}),
      );
      // the server's compaction events already put a note in the panel
      if (!this.compactionReported) this.notice(compactMarkdown(r), "info");
      return r;
    } catch (e) {
      this.notice(`Compaction failed: ${(e as Error).message ?? e}`, "error");
      return undefined;
    }
  }

  async mcpServers(): Promise<void> {
    try {
      this.notice(mcpMarkdown(await this.agent.request<McpServersResult>(Methods.mcpServers, {})), "info");
    } catch (e) {
      this.notice(`MCP servers are not available: ${(e as Error).message ?? e}`, "warn");
    }
  }

  async cost(): Promise<CostResult | undefined> {
    try {
      const c = await this.agent.request<CostResult>(Methods.cost, {});
      this.notice(costMarkdown(c), "info");
      if (c.model && !this.labelFromUsage) {
        this.modelLabel = c.model;
        this.post({ type: "model", label: c.model });
      }
      return c;
    } catch (e) {
      this.notice(`Cost unavailable: ${(e as Error).message ?? e}`, "error");
      return undefined;
    }
  }

  /** A new conversation; the current one stays in the history (Agent: Show Chat History). */
  async clear(): Promise<void> {
    this.stop();
    try {
      await this.agent.request(Methods.newSession, {});
    } catch (e) {
      void vscode.window.showWarningMessage(`Agent: the server could not start a new chat: ${(e as Error).message ?? e}`);
      return;
    }
    this.show(T.emptyTranscript());
    this.todos = [];
    this.post({ type: "todos", todos: [] });
    this.notice("New chat. The previous conversation is kept: Agent: Show Chat History resumes it.", "info");
  }

  /** Continue a conversation from the history: the server restores it, the panel shows its transcript. */
  async resume(sessionId: string): Promise<void> {
    if (this.running) {
      void vscode.window.showWarningMessage("Agent: stop the running turn before switching conversations.");
      return;
    }
    try {
      const r = await this.agent.request<ResumeResult>(Methods.resume, { sessionId });
      this.show(T.fromSession(r.transcript));
      await this.refreshTodos();
    } catch (e) {
      void vscode.window.showWarningMessage(`Agent: could not resume that conversation: ${(e as Error).message ?? e}`);
    }
  }

  private show(transcript: T.Transcript): void {
    this.transcript = transcript;
    this.pending = [];
    this.post({ type: "init", items: transcript.items, busy: false, server: this.agent.status, modelLabel: this.modelLabel });
    this.save();
  }

  // ------------------------------------------------ read-only documents

  /** The full original of a rewritten tool result (its context:// ref), read-only. */
  private async openOriginal(toolUseId: string): Promise<void> {
    try {
      const r = await this.agent.request<ToolResult>(Methods.toolResult, { toolUseId, original: true });
      const header = `${r.ref} · ${r.tool} ${JSON.stringify(r.input)} · ${r.originalChars} chars (original, as the tool returned it)`;
      await this.openReadOnly(`/context/${toolUseId} (original).txt`, `${header}\n\n${r.original ?? r.text}`);
    } catch (e) {
      this.notice(`Could not open the original: ${(e as Error).message ?? e}`, "error");
    }
  }

  private async openReadOnly(pathPart: string, text: string, language?: string): Promise<void> {
    if (!this.docs) return;
    const uri = this.docs.set(pathPart, text);
    let doc = await vscode.workspace.openTextDocument(uri);
    if (language) doc = await vscode.languages.setTextDocumentLanguage(doc, language);
    await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Active });
  }

  // ------------------------------------------------------ attachments, @

  /** "Agent: Add Selection to Chat": quote the selection with its file and line range. */
  async addSelection(editor: vscode.TextEditor | undefined): Promise<void> {
    if (!editor) return;
    const sel = editor.selection;
    const doc = editor.document;
    const span = selectedSpan(sel.start, sel.end, (line) => doc.lineAt(line).text.length);
    const range = sel.isEmpty
      ? doc.lineAt(sel.active.line).range
      : new vscode.Range(span.start.line, span.start.character, span.end.line, span.end.character);
    const text = doc.getText(range);
    const rel = vscode.workspace.asRelativePath(doc.uri, false);
    const lines = linesLabel(range.start, range.end);
    const fence = text.includes("```") ? "````" : "```";
    const quote = `\`${rel}\` ${lines}:\n${fence}${doc.languageId}\n${text.replace(/\n$/, "")}\n${fence}\n`;
    this.pending.push({
      uri: doc.uri.toString(),
      range: {
        start: { line: range.start.line, character: range.start.character },
        end: { line: range.end.line, character: range.end.character },
      },
    });
    await this.reveal(false);
    this.post({ type: "insertText", text: quote });
    this.post({ type: "focusInput" });
  }

  private async collectAttachments(prompt: string): Promise<{ attachments: Attachment[]; labels: string[]; missing: string[] }> {
    const attachments: Attachment[] = [...this.pending];
    const labels = this.pending.map((a) => {
      const rel = vscode.workspace.asRelativePath(vscode.Uri.parse(a.uri), false);
      return a.range ? `${rel}:${a.range.start.line + 1}-${a.range.end.line + 1}` : rel;
    });
    this.pending = [];
    const missing: string[] = [];
    for (const p of mentionedPaths(prompt)) {
      const uri = await this.resolveWorkspacePath(p);
      if (!uri) {
        missing.push(p);
        continue;
      }
      try {
        const doc = await vscode.workspace.openTextDocument(uri); // the live (possibly unsaved) text
        let text = doc.getText();
        if (text.length > MAX_ATTACHMENT_CHARS) text = text.slice(0, MAX_ATTACHMENT_CHARS);
        attachments.push({ uri: uri.toString(), text });
        labels.push(p);
      } catch {
        missing.push(p);
      }
    }
    return { attachments, labels, missing };
  }

  private async resolveWorkspacePath(p: string): Promise<vscode.Uri | undefined> {
    const tries: vscode.Uri[] = [];
    if (p.startsWith("/")) tries.push(vscode.Uri.file(p));
    for (const f of vscode.workspace.workspaceFolders ?? []) {
      tries.push(vscode.Uri.joinPath(f.uri, p));
      const prefix = f.name + "/";
      if (p.startsWith(prefix)) tries.push(vscode.Uri.joinPath(f.uri, p.slice(prefix.length)));
    }
    for (const uri of tries) {
      try {
        const st = await vscode.workspace.fs.stat(uri);
        if (st.type & vscode.FileType.File) return uri;
      } catch {
        /* next */
      }
    }
    return undefined;
  }

  /** A file created or deleted makes the @-mention list stale. */
  private watchFiles(): vscode.Disposable {
    const watcher = vscode.workspace.createFileSystemWatcher("**/*", false, true, false);
    watcher.onDidCreate(() => this.files.invalidate());
    watcher.onDidDelete(() => this.files.invalidate());
    return watcher;
  }

  /** A command file added, changed or removed: the input's completions and /help follow. */
  private watchCommands(): vscode.Disposable {
    const watcher = vscode.workspace.createFileSystemWatcher("**/.agents/commands/*.md");
    const refresh = () => void this.refreshCommands();
    watcher.onDidCreate(refresh);
    watcher.onDidChange(refresh);
    watcher.onDidDelete(refresh);
    return watcher;
  }

  private async findFiles(query: string): Promise<string[]> {
    if (!vscode.workspace.workspaceFolders?.length) return []; // no folder: nothing to search, nothing to wait for
    return rankPaths(await this.files.paths(), query, 20);
  }

  // ----------------------------------------------------------------- store

  private scheduleSave(): void {
    if (this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      this.save();
    }, 1000);
  }

  private save(): void {
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.saveTimer = undefined;
    }
    void this.ctx.workspaceState.update(STORE_KEY, this.transcript.items);
  }

  dispose(): void {
    this.save();
    this.running?.cancel();
    for (const s of this.subs) s.dispose();
  }
}
