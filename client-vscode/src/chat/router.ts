/** What a chat view says (messages.ts `FromWebview`), each sent to the part that does it. */
import * as vscode from "vscode";
import type { AgentClient } from "../client";
import { Methods, type ToolResult } from "../protocol";
import type { FromWebview } from "../shared/messages";
import type { Attachments } from "./attachments";
import { resolveWorkspacePath } from "./attachments";
import type { Checkpoints } from "./checkpoints";
import type { Host, Hosts } from "./hosts";
import type { ModelHeader } from "./modelHeader";
import type { Panel } from "./panel";
import type { PanelApprovals } from "./panelApprovals";
import type { PlanMode } from "./planMode";
import type { ReadOnlyDocs } from "./readOnly";
import type { SlashCommands } from "./slashCommands";
import type { Turns } from "./turns";

export interface ChatParts {
  agent: AgentClient;
  hosts: Hosts;
  panel: Panel;
  approvals: PanelApprovals;
  model: ModelHeader;
  attachments: Attachments;
  turns: Turns;
  slash: SlashCommands;
  checkpoints: Checkpoints;
  readOnly: ReadOnlyDocs;
  plan: PlanMode;
}

export async function route(p: ChatParts, host: Host, m: FromWebview): Promise<void> {
  switch (m.type) {
    case "ready":
      // a view that opens gets the whole state; pending approvals come back; the header meter
      // appears with the status bar's, before any turn
      p.panel.init(host);
      p.hosts.post({ type: "todos", todos: p.panel.todos }, host);
      p.hosts.post({ type: "commands", commands: p.panel.commands }, host);
      p.hosts.post({ type: "mode", mode: p.panel.mode }, host);
      if (p.panel.usage) p.hosts.post({ type: "contextUsage", usage: p.panel.usage }, host);
      p.approvals.replay(host);
      p.hosts.ready(host); // last: the caret asked for before the page listened (Ctrl+Alt+K on load)
      void p.model.models.refresh();
      return;
    case "setModel":
      await p.model.choose(m.model);
      return;
    case "setMode":
      await p.plan.set(m.mode);
      return;
    case "approvePlan":
      await p.plan.approve();
      return;
    case "approvalAnswer":
      p.approvals.answer(m.id, m.choice, m.reason);
      return;
    case "send":
      await p.turns.send(m.text);
      return;
    case "stop":
      p.turns.stop();
      return;
    case "command":
      await p.slash.run(m.name, m.args);
      return;
    case "customCommand":
      await p.slash.runCustom(m.name, m.args);
      return;
    case "mentionQuery": {
      const t = Date.now();
      p.agent.log.debug(`mention #${m.seq} "${m.query}": received`);
      const items = await p.attachments.search(m.query);
      p.agent.log.debug(`mention #${m.seq} "${m.query}": answered with ${items.length} items in ${Date.now() - t} ms`);
      p.hosts.post({ type: "mentionResults", query: m.query, items, seq: m.seq }, host);
      return;
    }
    case "copy":
      await vscode.env.clipboard.writeText(m.text);
      void vscode.window.setStatusBarMessage("Copied to the clipboard", 2000);
      return;
    case "openFile": {
      const uri = await resolveWorkspacePath(m.path);
      if (!uri) return;
      const line = m.line ? Math.max(0, m.line - 1) : undefined;
      const selection = line !== undefined ? new vscode.Range(line, 0, line, 0) : undefined;
      await vscode.window.showTextDocument(uri, { preview: true, selection });
      return;
    }
    case "toolResult":
      await toolResult(p, host, m.toolUseId);
      return;
    case "openOriginal":
      await p.readOnly.openOriginal(m.toolUseId);
      return;
    case "openSummary":
      await p.readOnly.openSummary(m.summary, m.label);
      return;
    case "restartServer":
      await vscode.commands.executeCommand("agentls.restartServer");
      return;
    case "restore":
      await p.checkpoints.restore(m.checkpoint, m.restore, m.prompt);
      return;
  }
}

/** An opened tool card's details, to the view that opened it (the badge follows the server's word). */
async function toolResult(p: ChatParts, host: Host, toolUseId: string): Promise<void> {
  try {
    const result = await p.agent.request<ToolResult>(Methods.toolResult, { toolUseId });
    p.panel.emit({ type: "toolResult", toolUseId, result }, host);
  } catch (e) {
    p.hosts.post({ type: "toolResult", toolUseId, error: (e as Error).message ?? String(e) }, host);
  }
}
