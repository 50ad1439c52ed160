/** The language client: launch, restart, crash recovery, typed requests. */
import * as vscode from "vscode";
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  State,
  WorkDoneProgress,
  type LanguageClientOptions,
  type ServerOptions,
} from "vscode-languageclient/node";
import {
  Methods,
  type AgentEvent,
  type ConfirmParams,
  type ConfirmResult,
  type ContextUsage,
  type EditorQueryParams,
  type InitializationOptions,
} from "./protocol";
import { serverArgs } from "./shared/interpreter";
import type { ServerStatus } from "./shared/messages";
import { toAgentSettings } from "./shared/settings";
import { describeFailedSetting, describeNoInterpreter, failedSetting, type Tried } from "./shared/launchErrors";
import { bundledWheel, candidates, probe, resolveInterpreter, setupPrivateEnv } from "./launcher";
import { EDITOR_QUERY_KINDS, type EditorQueryHandler } from "./editorQuery";
import { windowId } from "./windowId";

export const SECRET_KEY = "agentls.apiKey";
const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 3 * 60_000;

export type ConfirmHandler = (p: ConfirmParams, token: vscode.CancellationToken) => Promise<ConfirmResult>;

export class AgentClient implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private crashes: number[] = [];
  private stopping = false;
  private starting: Promise<void> | undefined;
  private _status: ServerStatus = { phase: "starting" };
  private subs: vscode.Disposable[] = [];

  readonly onEvent = new vscode.EventEmitter<AgentEvent>();
  readonly onContextUsage = new vscode.EventEmitter<ContextUsage>();
  readonly onStatus = new vscode.EventEmitter<ServerStatus>();
  readonly onProgress = new vscode.EventEmitter<{ token: string | number; message: string }>();
  python: string | undefined;

  constructor(
    private readonly ctx: vscode.ExtensionContext,
    readonly log: vscode.LogOutputChannel,
    private readonly confirm: ConfirmHandler,
    private readonly editorQuery?: EditorQueryHandler,
  ) {}

  get status(): ServerStatus {
    return this._status;
  }

  get isRunning(): boolean {
    return this.client?.state === State.Running;
  }

  get serverInfo(): string | undefined {
    const info = this.client?.initializeResult?.serverInfo;
    return info ? `${info.name}${info.version ? ` ${info.version}` : ""}` : undefined;
  }

  private setStatus(s: ServerStatus): void {
    this._status = s;
    this.onStatus.fire(s);
  }

  /** Starts the server (idempotent while a start is in flight). */
  start(): Promise<void> {
    if (!this.starting) {
      this.starting = this.doStart().finally(() => {
        this.starting = undefined;
      });
    }
    return this.starting;
  }

  async restart(): Promise<void> {
    if (this.starting) await this.starting.catch(() => undefined);
    await this.stop();
    this.crashes = [];
    await this.start();
  }

  async stop(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    for (const s of this.subs.splice(0)) s.dispose();
    if (!c) return;
    this.stopping = true;
    try {
      if (c.state !== State.Stopped) await c.stop(5000);
    } catch (e) {
      this.log.warn(`stop: ${String(e)}`);
    } finally {
      await c.dispose().catch?.(() => undefined);
      this.stopping = false;
    }
    this.setStatus({ phase: "stopped" });
  }

  private async doStart(): Promise<void> {
    this.setStatus({ phase: "starting", message: "Looking for a Python with agentls…" });
    let python: string | undefined;
    let tried: Tried[] = [];
    try {
      const resolution = await resolveInterpreter(this.ctx, this.log);
      python = resolution.python;
      tried = resolution.tried;
      const chosen = failedSetting(tried);
      if (chosen) {
        // The user's own choice failed: say so by name, whatever else works.
        const message = describeFailedSetting(chosen);
        this.log.error(message);
        if (!python) {
          this.setStatus({ phase: "error", message });
          this.offerSettings(`Agent: ${message}`);
          return;
        }
        this.offerSettings(`Agent: ${message} Using ${python} instead.`, "warning");
      }
      if (!python) python = await this.offerSetup(tried);
    } catch (e) {
      const msg = e instanceof vscode.CancellationError ? "setup cancelled" : String((e as Error).message ?? e);
      this.log.error(`setup: ${msg}`);
      this.setStatus({ phase: "error", message: `Python environment setup failed: ${msg}` });
      return;
    }
    if (!python) {
      this.setStatus({ phase: "error", message: describeNoInterpreter(tried) });
      return;
    }
    this.python = python;
    await this.launch(python);
  }

  private offerSettings(message: string, level: "error" | "warning" = "error"): void {
    const shown = level === "error"
      ? vscode.window.showErrorMessage(message, "Open Settings")
      : vscode.window.showWarningMessage(message, "Open Settings");
    void shown.then((pick) => {
      if (pick) void vscode.commands.executeCommand("workbench.action.openSettings", "agentls.pythonPath");
    });
  }

  private async offerSetup(tried: Tried[]): Promise<string | undefined> {
    const wheel = bundledWheel(this.ctx);
    const cands = await candidates(this.ctx);
    let base: string | undefined;
    for (const c of cands) {
      if (c.source === "privateEnv") continue;
      const p = await probe(c.path);
      if (!p.missing) {
        base = c.path;
        break;
      }
    }
    if (!wheel || !base) {
      this.offerSettings(`Agent: ${describeNoInterpreter(tried)}`);
      return undefined;
    }
    this.setStatus({ phase: "setup", message: "agentls is not installed; waiting for setup" });
    const SETUP = "Set Up Private Environment";
    const pick = await vscode.window.showWarningMessage(
      `Agent: agentls is not installed in ${base}. Set up a private environment for it (python -m venv + pip install of the bundled wheel)?`,
      SETUP,
      "Open Settings",
    );
    if (pick === "Open Settings") {
      void vscode.commands.executeCommand("workbench.action.openSettings", "agentls.pythonPath");
      return undefined;
    }
    if (pick !== SETUP) return undefined;
    this.setStatus({ phase: "setup", message: "Setting up a private environment…" });
    const py = await setupPrivateEnv(this.ctx, this.log, base);
    const p = await probe(py);
    if (!p.ok) throw new Error(`agentls still not importable in ${py}: ${p.detail}`);
    void vscode.window.showInformationMessage("Agent: private environment ready; starting the server.");
    return py;
  }

  private async initializationOptions(): Promise<InitializationOptions> {
    const apiKey = await this.ctx.secrets.get(SECRET_KEY);
    const section = vscode.workspace.getConfiguration("agentls");
    const opts: InitializationOptions = {
      settings: toAgentSettings(section as unknown as Record<string, unknown>),
      supportsConfirm: true,
      supportsEvents: true,
      showsDemoNotice: true,
      windowId: await windowId(this.ctx.workspaceState),
    };
    if (this.editorQuery) opts.editorQueries = EDITOR_QUERY_KINDS;
    if (apiKey) opts.apiKey = apiKey;
    return opts;
  }

  private async launch(python: string): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const serverOptions: ServerOptions = {
      command: python,
      args: serverArgs(),
      options: { cwd: folder?.uri.fsPath, env: { ...process.env, PYTHONUNBUFFERED: "1" } },
    };
    const initOptions = await this.initializationOptions();
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: "file" }, { scheme: "untitled" }],
      outputChannel: this.log,
      traceOutputChannel: this.log,
      initializationOptions: initOptions,
      synchronize: { configurationSection: "agentls" },
      middleware: {
        workspace: {
          // The server accepts {settings: {agentls: AgentSettings}}; send the
          // cleaned shape (no client-only keys, no empty "use default" values).
          didChangeConfiguration: async (_sections, next) => {
            void next;
            const c = this.client;
            if (!c || c.state !== State.Running) return;
            const settings = toAgentSettings(vscode.workspace.getConfiguration("agentls") as unknown as Record<string, unknown>);
            this.log.info(`settings → server: ${JSON.stringify(settings)}`);
            await c.sendNotification("workspace/didChangeConfiguration", { settings: { agentls: settings } });
          },
        },
      },
      errorHandler: {
        error: (_error, _message, count) => ({
          action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown,
          handled: true,
        }),
        closed: () => this.onClosed(),
      },
      connectionOptions: { maxRestartCount: MAX_RESTARTS },
    };
    const client = new LanguageClient("agentls", "Agent (agentls)", serverOptions, clientOptions);
    this.client = client;
    this.subs.push(
      client.onNotification(Methods.event, (e: AgentEvent) => this.onEvent.fire(e)),
      client.onNotification(Methods.contextUsage, (u: ContextUsage) => this.onContextUsage.fire(u)),
      client.onRequest(Methods.confirm, (p: ConfirmParams, token) => this.confirm(p, token)),
      client.onDidChangeState((e) => {
        if (this.client !== client) return;
        if (e.newState === State.Running) {
          this.setStatus({ phase: "running", message: this.restartMessage() });
        } else if (e.newState === State.Starting && this._status.phase !== "restarting") {
          this.setStatus({ phase: "starting" });
        }
      }),
    );
    const editorQuery = this.editorQuery;
    if (editorQuery) this.subs.push(client.onRequest(Methods.editorQuery, (p: EditorQueryParams, token) => editorQuery.handle(p, token)));
    this.log.info(`starting: ${python} ${serverArgs().join(" ")}`);
    this.setStatus({ phase: "starting", message: `${python} -m agentls serve --stdio` });
    try {
      await client.start();
    } catch (e) {
      if (this.client !== client) return;
      const msg = String((e as Error)?.message ?? e);
      this.log.error(`server failed to start: ${msg}`);
      this.setStatus({ phase: "error", message: `The agent server failed to start: ${msg}` });
      void vscode.window
        .showErrorMessage(`Agent: the server failed to start (${msg}).`, "Show Log", "Restart")
        .then((pick) => {
          if (pick === "Show Log") this.log.show();
          if (pick === "Restart") void vscode.commands.executeCommand("agentls.restartServer");
        });
    }
  }

  private lastCrashNote = "";

  private restartMessage(): string | undefined {
    const m = this.lastCrashNote;
    this.lastCrashNote = "";
    return m || undefined;
  }

  private onClosed() {
    if (this.stopping) return { action: CloseAction.DoNotRestart, handled: true };
    const now = Date.now();
    this.crashes = this.crashes.filter((t) => now - t < RESTART_WINDOW_MS);
    this.crashes.push(now);
    if (this.crashes.length <= MAX_RESTARTS) {
      const n = this.crashes.length;
      this.log.warn(`server exited unexpectedly; restart ${n}/${MAX_RESTARTS}`);
      this.lastCrashNote = `The agent server restarted after a crash (${n}/${MAX_RESTARTS}).`;
      this.setStatus({ phase: "restarting", message: `The agent server stopped unexpectedly; restarting (${n}/${MAX_RESTARTS})…` });
      return { action: CloseAction.Restart, handled: true };
    }
    const message = `The agent server crashed ${MAX_RESTARTS + 1} times in 3 minutes; not restarting. See the log, then run Agent: Restart Server.`;
    this.log.error(message);
    this.setStatus({ phase: "error", message });
    void vscode.window.showErrorMessage(`Agent: ${message}`, "Show Log", "Restart").then((pick) => {
      if (pick === "Show Log") this.log.show();
      if (pick === "Restart") void vscode.commands.executeCommand("agentls.restartServer");
    });
    return { action: CloseAction.DoNotRestart, handled: true };
  }

  /** Typed request; rejects when the server is not running. */
  async request<R>(method: string, params: unknown, token?: vscode.CancellationToken): Promise<R> {
    if (this.starting) await this.starting;
    const c = this.client;
    if (!c || c.state !== State.Running) {
      throw new Error(this._status.message ?? "the agent server is not running");
    }
    return token ? c.sendRequest<R>(method, params, token) : c.sendRequest<R>(method, params);
  }

  /** Subscribe to `$/progress` for a work done token; returns a disposable. */
  progress(token: string): vscode.Disposable {
    const c = this.client;
    if (!c) return new vscode.Disposable(() => undefined);
    return c.onProgress(WorkDoneProgress.type, token, (v) => {
      const message = ("message" in v && v.message) || ("title" in v && v.title) || "";
      if (message) this.onProgress.fire({ token, message });
    });
  }

  dispose(): void {
    void this.stop();
    for (const s of this.subs) s.dispose();
    this.onEvent.dispose();
    this.onContextUsage.dispose();
    this.onStatus.dispose();
    this.onProgress.dispose();
  }
}
