/** Palette commands (category "Agent"). */
import * as vscode from "vscode";
import { SECRET_KEY, type AgentClient } from "./client";
import type { ChatController } from "./chatView";
import { showMcpServers } from "./mcpPicker";
import { showHistory } from "./history";
import { showCheckpoints } from "./checkpointPicker";
import { Methods, type ContextResult, type ContextUsage } from "./protocol";
import { USE_MODEL_WINDOW, costLine, formatTokens } from "./shared/format";
import { writeAgentSetting } from "./settingWriter";
import { changesContext, LiveContext } from "./shared/liveContext";
import type { VirtualDocs } from "./virtualDocs";

const CONTEXT_DOC = "/Agent Context.md";

export function registerCommands(
  ctx: vscode.ExtensionContext,
  agent: AgentClient,
  chat: ChatController,
  docs: VirtualDocs,
  log?: vscode.LogOutputChannel,
): void {
  const reg = (id: string, fn: (...args: never[]) => unknown) =>
    ctx.subscriptions.push(vscode.commands.registerCommand(id, fn));

  reg("agentls.openChat", () => chat.reveal(true));
  reg("agentls.openChatInEditor", () => chat.openInEditor());

  reg("agentls.compact", async () => {
    const instructions = await vscode.window.showInputBox({
      title: "Agent: Compact Conversation",
      prompt: "Optional instructions for the summary (Enter to compact without)",
      placeHolder: "e.g. keep the decisions about the API",
      ignoreFocusOut: false,
    });
    if (instructions === undefined) return; // Escape
    const r = await chat.compact(instructions.trim() || undefined);
    // one message per outcome: a compaction with nothing to gain is said in the panel only
    if (r && r.compacted !== false) {
      void vscode.window.showInformationMessage(
        `Agent: compacted ${r.tokensBefore.toLocaleString("en-US")} → ${r.tokensAfter.toLocaleString("en-US")} tokens.`,
      );
    }
  });

  reg("agentls.togglePlanMode", () => chat.togglePlanMode());
  reg("agentls.approvePlan", () => chat.approvePlan());

  reg("agentls.showCost", async () => {
    const c = await chat.cost(false); // one result: the toast (the panel's /cost is its own)
    if (c) void vscode.window.showInformationMessage(costLine(c));
    else void vscode.window.showWarningMessage("Agent: cost is not available (is the server running?)");
  });

  // Show Context is live: re-rendered after every change the server announces.
  const live = new LiveContext(
    () => agent.request<ContextResult>(Methods.context, {}),
    (markdown) => {
      const uri = docs.set(CONTEXT_DOC, markdown);
      log?.debug("context report re-rendered");
      // VS Code releases a document that no editor shows three minutes after an extension opened it
      // (mainThreadDocuments: BoundModelReferenceCollection, maxAge 3 min); the preview then no longer
      // hears of changes and goes stale. Opening it again at each change keeps it, or re-creates it with
      // the new text, which the markdown preview also follows (onDidOpenTextDocument).
      void Promise.resolve(vscode.workspace.openTextDocument(uri)).catch(() => undefined);
    },
  );
  docs.produce(CONTEXT_DOC, () => live.render());
  ctx.subscriptions.push(agent.onContextUsage.event(() => void live.changed()));
  // an AGENTS.md edit or a tool list change shows in the turn that announces it, not after its reply
  ctx.subscriptions.push(agent.onEvent.event((e) => changesContext(e) && void live.changed()));

  reg("agentls.showContext", async () => {
    const uri = docs.set(CONTEXT_DOC, await live.render());
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(doc, "markdown");
    try {
      await vscode.commands.executeCommand("markdown.showPreview", uri);
    } catch {
      await vscode.window.showTextDocument(doc, { preview: true });
    }
  });

  reg("agentls.newChat", () => chat.clear());
  reg("agentls.clear", () => chat.clear()); // the old name of New Chat
  reg("agentls.showHistory", () => showHistory(agent, chat));
  reg("agentls.showCheckpoints", () => showCheckpoints(agent, chat));
  reg("agentls.showMcpServers", () => showMcpServers(agent));
  reg("agentls.stop", () => chat.stop());

  reg("agentls.setApiKey", async () => {
    const has = !!(await ctx.secrets.get(SECRET_KEY));
    const key = await vscode.window.showInputBox({
      title: "Agent: Set API Key",
      prompt: has
        ? "A key is stored. Enter a new key, or leave empty and press Enter to remove it."
        : "Anthropic API key (stored in VS Code's secret storage, never in settings).",
      password: true,
      ignoreFocusOut: true,
      placeHolder: "sk-ant-…",
    });
    if (key === undefined) return;
    if (key.trim()) await ctx.secrets.store(SECRET_KEY, key.trim());
    else await ctx.secrets.delete(SECRET_KEY);
    void vscode.window.showInformationMessage(key.trim() ? "Agent: API key stored; restarting the server." : "Agent: API key removed; restarting the server.");
    await agent.restart();
  });

  reg("agentls.restartServer", async () => {
    chat.notice("Restarting the agent server…", "info");
    await agent.restart();
  });

  reg("agentls.addSelection", () => chat.addSelection(vscode.window.activeTextEditor));

  // The status bar tooltip's one-click raise: the working window becomes the model's own.
  let usage: ContextUsage | undefined;
  ctx.subscriptions.push(agent.onContextUsage.event((u) => (usage = u)));
  reg(USE_MODEL_WINDOW, async (tokens?: number) => {
    const target = typeof tokens === "number" && tokens > 0 ? tokens : usage?.modelWindow;
    if (!target) {
      void vscode.window.showWarningMessage("Agent: the model's context window is not known (is the server running?)");
      return;
    }
    await writeAgentSetting("contextWindow", target);
    void vscode.window.showInformationMessage(
      `Agent: the working window is now the model's full ${formatTokens(target)} (agentls.contextWindow = ${target}).`,
    );
  });
}
