/**
 * Where the chat is shown: the sidebar's webview view and any editor tabs opened beside it.
 * Each is a host: it gets the page, its messages go to one handler, and a message can be
 * posted to all of them or to one.
 */
import * as vscode from "vscode";
import type { FromWebview, ToWebview } from "../shared/messages";
import { chatHtml } from "./html";

export interface Host {
  webview: vscode.Webview;
  visible(): boolean;
}

export class Hosts implements vscode.Disposable {
  private readonly hosts = new Set<Host>();
  private readonly listening = new WeakSet<Host>(); // its page said "ready": a message posted now arrives
  private focusWanted = false; // the caret was asked for before any page listened
  private view: vscode.WebviewView | undefined;
  private readonly subs: vscode.Disposable[] = [];

  /**
   * `onMessage`: what a view says; `onVisibility`: a view was shown, hidden or closed
   * (approvals move to the native dialog once none is on screen).
   */
  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly onMessage: (host: Host, m: FromWebview) => void,
    private readonly onVisibility: () => void,
  ) {}

  /** WebviewViewProvider for the sidebar view. */
  readonly viewProvider: vscode.WebviewViewProvider = {
    resolveWebviewView: (view) => {
      this.view = view;
      const host = this.attach(view.webview, () => view.visible);
      view.onDidChangeVisibility(() => this.onVisibility(), undefined, this.subs);
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
      { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, "dist")] },
    );
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, "media", "agent.svg");
    const host = this.attach(panel.webview, () => panel.visible);
    panel.onDidChangeViewState(() => this.onVisibility(), undefined, this.subs);
    panel.onDidDispose(() => {
      this.hosts.delete(host);
      this.onVisibility();
    });
  }

  private attach(webview: vscode.Webview, visible: () => boolean): Host {
    webview.options = { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, "dist")] };
    webview.html = chatHtml(webview, this.extensionUri);
    const host: Host = { webview, visible };
    this.hosts.add(host);
    webview.onDidReceiveMessage((m: FromWebview) => this.onMessage(host, m), undefined, this.subs);
    return host;
  }

  /** Shows the sidebar view (it is created on first show). */
  async reveal(): Promise<void> {
    if (this.view) this.view.show(false);
    else await vscode.commands.executeCommand("agentls.chat.focus");
  }

  /**
   * The caret in the chat's input: now in the pages that listen, else in the first that says "ready" (right
   * after a window loads, Ctrl+Alt+K creates the view, and a message posted before its page listens is lost).
   */
  focusInput(): void {
    const ready = [...this.hosts].filter((h) => this.listening.has(h));
    if (ready.length) for (const h of ready) this.post({ type: "focusInput" }, h);
    else this.focusWanted = true;
  }

  /** A page listens (its "ready"): the caret it was asked for before goes there. */
  ready(host: Host): void {
    this.listening.add(host);
    if (!this.focusWanted) return;
    this.focusWanted = false;
    this.post({ type: "focusInput" }, host);
  }

  post(m: ToWebview, only?: Host): void {
    for (const h of only ? [only] : this.hosts) void h.webview.postMessage(m);
  }

  /** Is a chat view on screen? */
  get anyVisible(): boolean {
    return [...this.hosts].some((h) => h.visible());
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
  }
}
