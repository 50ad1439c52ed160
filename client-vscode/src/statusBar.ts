/** The context meter in the status bar, fed by `agent/contextUsage`. */
import * as vscode from "vscode";
import type { ContextUsage, SubagentCost } from "./protocol";
import { USE_MODEL_WINDOW, phaseText, statusBackground, statusText, statusTooltip, subagentsMarkdown } from "./shared/format";
import type { ServerStatus } from "./shared/messages";

export class StatusBar implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  private usage: ContextUsage | undefined;
  private status: ServerStatus = { phase: "starting" };
  private subagents: SubagentCost[] = []; // the conversation's subagents, as agent/cost last named them

  constructor() {
    this.item = vscode.window.createStatusBarItem("agentls.context", vscode.StatusBarAlignment.Right, 100);
    this.item.name = "Agent Context";
    this.item.command = "agentls.showContext";
    this.render();
    this.item.show();
  }

  setStatus(s: ServerStatus): void {
    this.status = s;
    if (s.phase !== "running") this.usage = undefined;
    this.render();
  }

  /** Each subagent's tokens and cost, shown in the tooltip (refreshed when one ends: extension.ts). */
  get hasSubagents(): boolean {
    return this.subagents.length > 0;
  }

  setSubagents(items: SubagentCost[]): void {
    this.subagents = items;
    this.render();
  }

  setUsage(u: ContextUsage): void {
    this.usage = u;
    this.render();
  }

  private render(): void {
    const it = this.item;
    if (this.status.phase === "running" && this.usage) {
      const u = this.usage;
      it.text = statusText(u);
      const bg = statusBackground(u.level);
      it.backgroundColor = bg ? new vscode.ThemeColor(bg) : undefined;
      const md = new vscode.MarkdownString([statusTooltip(u), ...subagentsMarkdown(this.subagents)].join("\n"));
      md.supportThemeIcons = true;
      md.isTrusted = { enabledCommands: [USE_MODEL_WINDOW] }; // the "use the full window" link, nothing else
      it.tooltip = md;
      it.accessibilityInformation = {
        label: `Agent context ${Math.round(u.utilization * 100)} percent used, level ${u.level}`,
      };
      it.command = "agentls.showContext";
      return;
    }
    it.text = phaseText(this.status.phase);
    it.backgroundColor =
      this.status.phase === "error" ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
    it.tooltip = this.status.message ?? `Agent server: ${this.status.phase}`;
    it.accessibilityInformation = { label: `Agent server ${this.status.phase}` };
    it.command = this.status.phase === "error" ? "agentls.restartServer" : "agentls.showContext";
  }

  dispose(): void {
    this.item.dispose();
  }
}
