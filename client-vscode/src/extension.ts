/** Entry point: wires the language client, chat panel, status bar and commands. */
import * as vscode from "vscode";
import { makeConfirmHandler, writeAllowRules } from "./approvals";
import { ChatController } from "./chatView";
import { AgentClient } from "./client";
import { registerCommands } from "./commands";
import { maybeShowDemoNotice } from "./demoNotice";
import { EditorQueryHandler, vscodeEditorApi } from "./editorQuery";
import { StatusBar } from "./statusBar";
import { SCHEME, VirtualDocs } from "./virtualDocs";
import { Methods, type CostResult } from "./protocol";

let agent: AgentClient | undefined;

export async function activate(ctx: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel("Agent (agentls)", { log: true });
  const docs = new VirtualDocs();
  const status = new StatusBar();
  const editorQuery = new EditorQueryHandler(vscodeEditorApi()); // counts diagnostics changes from activation on
  let chat: ChatController | undefined; // approvals are asked in its panel; built next, it needs the client
  const confirm = makeConfirmHandler(docs, vscode.window, writeAllowRules, (p, token, fallback) =>
    chat?.askInPanel(p, token, fallback),
  );
  agent = new AgentClient(ctx, log, confirm, editorQuery);
  const client = agent;
  // each subagent's tokens and cost in the meter's tooltip, as agent/cost names them
  const refreshSubagents = (): void => {
    client.request<CostResult>(Methods.cost, {}).then((c) => status.setSubagents(c.subagents ?? []), () => undefined);
  };
  chat = new ChatController(ctx, agent, docs);
  ctx.subscriptions.push(
    log,
    docs,
    status,
    editorQuery,
    agent,
    chat,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, docs),
    vscode.window.registerWebviewViewProvider("agentls.chat", chat.viewProvider, {
      webviewOptions: { retainContextWhenHidden: true },
    }),
    agent.onStatus.event((s) => status.setStatus(s)),
    agent.onContextUsage.event((u) => status.setUsage(u)),
    // a subagent ended: its tokens and cost join the meter's tooltip (agent/cost names each one)
    agent.onEvent.event((e) => e.kind === "subagentFinished" && refreshSubagents()),
    agent.onContextUsage.event(() => status.hasSubagents && refreshSubagents()), // a new chat has none
    agent.onContextUsage.event((u) => void maybeShowDemoNotice(ctx.workspaceState, u)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("agentls.pythonPath")) {
        void vscode.window
          .showInformationMessage("Agent: the Python interpreter setting changed.", "Restart Server")
          .then((pick) => pick && vscode.commands.executeCommand("agentls.restartServer"));
      }
    }),
  );
  registerCommands(ctx, agent, chat, docs, log);
  void agent.start();
}

export async function deactivate(): Promise<void> {
  await agent?.stop();
  agent = undefined;
}
