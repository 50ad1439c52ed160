/**
 * The input's slash commands: the built-in ones (/compact, /cost, /new, /sessions, /context,
 * /mcp, /permissions, /help), answered as notices in the panel, and the custom ones
 * (`.agents/commands/*.md`), which the server expands into a prompt.
 */
import * as vscode from "vscode";
import { type InspectedPermissions, permissionsMarkdown } from "../shared/permissions";
import type { AgentClient } from "../client";
import {
  Methods,
  type AgentEvent,
  type CommandsResult,
  type CompactResult,
  type CostResult,
  type McpServersResult,
  type PermissionsResult,
} from "../protocol";
import { COST_TEST_ID, cacheCostMarkdown } from "../shared/cacheReport";
import { compactMarkdown, costMarkdown } from "../shared/format";
import { mcpMarkdown } from "../shared/mcp";
import { SLASH_COMMANDS, customUsage, type SlashName } from "../shared/slash";
import type { Hosts } from "./hosts";
import type { ModelHeader } from "./modelHeader";
import type { Panel } from "./panel";
import { modeOfArgs, type PlanMode } from "./planMode";
import type { Sessions } from "./sessions";
import type { Turns } from "./turns";

export class SlashCommands implements vscode.Disposable {
  private compactionReported = false;
  private readonly watcher: vscode.Disposable;

  constructor(
    private readonly agent: AgentClient,
    private readonly panel: Panel,
    private readonly hosts: Hosts,
    private readonly turns: Turns,
    private readonly sessions: Sessions,
    private readonly model: ModelHeader,
    private readonly plan: PlanMode,
  ) {
    this.watcher = this.watchCommands();
  }

  /** An event of the server: its compaction note makes /compact's own summary unnecessary. */
  heard(ev: AgentEvent): void {
    if (ev.kind === "compactionFinished") this.compactionReported = true;
  }

  async run(name: SlashName, args: string): Promise<void> {
    switch (name) {
      case "compact":
        await this.compact(args || undefined);
        return;
      case "cost":
        await this.cost();
        return;
      case "clear":
      case "new":
        await this.sessions.clear();
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
      case "plan": {
        const mode = modeOfArgs(args);
        if (mode) await this.plan.set(mode);
        else this.panel.notice("`/plan` turns plan mode on; `/plan off` approves the plan and lets the agent act.", "warn");
        return;
      }
      case "help":
        await this.help();
        return;
    }
  }

  /** A custom command: the server expands its file (`$ARGUMENTS`), the prompt is sent as typed text would be. */
  async runCustom(name: string, args: string): Promise<void> {
    let prompt: string;
    try {
      prompt = (await this.agent.request<{ prompt: string }>(Methods.expandCommand, { name, arguments: args })).prompt;
    } catch (e) {
      this.panel.notice(`\`/${name}\` failed: ${(e as Error).message ?? e}`, "error");
      return;
    }
    await this.turns.send(prompt);
  }

  async compact(instructions?: string): Promise<CompactResult | undefined> {
    try {
      this.compactionReported = false;
      const r = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: "Agent: compacting the conversation…" },
        () => this.agent.request<CompactResult>(Methods.compact, instructions ? { instructions } : {}),
      );
      // the server's compaction events already put a note in the panel
      if (!this.compactionReported) this.panel.notice(compactMarkdown(r), "info");
      return r;
    } catch (e) {
      this.panel.notice(`Compaction failed: ${(e as Error).message ?? e}`, "error");
      return undefined;
    }
  }

  /** `/cost` in the panel; the palette's Show Cost asks with `inPanel: false` and shows its own toast. */
  async cost(inPanel = true): Promise<CostResult | undefined> {
    try {
      const c = await this.agent.request<CostResult>(Methods.cost, {});
      if (inPanel) this.panel.notice(costMarkdown(c) + cacheCostMarkdown(c.cache), "info", COST_TEST_ID);
      this.model.fromCost(c);
      return c;
    } catch (e) {
      this.panel.notice(`Cost unavailable: ${(e as Error).message ?? e}`, "error");
      return undefined;
    }
  }

  private async help(): Promise<void> {
    await this.refreshCommands();
    const custom = this.panel.commands.map((c) => `- \`${customUsage(c)}\` — ${c.description} (${c.source})`);
    this.panel.notice(
      [...SLASH_COMMANDS.map((c) => `- \`${c.usage}\` — ${c.description}`), ...custom, "- `@path` — attach a workspace file"].join("\n") +
        (custom.length ? "" : "\n\nCustom commands: Markdown files in `.agents/commands/` (`$ARGUMENTS` takes what follows the command)."),
      "info",
    );
  }

  private async mcpServers(): Promise<void> {
    try {
      this.panel.notice(mcpMarkdown(await this.agent.request<McpServersResult>(Methods.mcpServers, {})), "info");
    } catch (e) {
      this.panel.notice(`MCP servers are not available: ${(e as Error).message ?? e}`, "warn");
    }
  }

  private async permissions(): Promise<void> {
    try {
      const { rules } = await this.agent.request<PermissionsResult>(Methods.permissions, {});
      const inspected = vscode.workspace.getConfiguration("agentls").inspect<unknown>("permissions") as InspectedPermissions | undefined;
      this.panel.notice(permissionsMarkdown(rules, inspected), "info");
    } catch (e) {
      this.panel.notice(`Permission rules are not available: ${(e as Error).message ?? e}`, "warn");
    }
  }

  /** The custom commands, for the input's completions and /help. */
  async refreshCommands(): Promise<void> {
    try {
      this.panel.commands = (await this.agent.request<CommandsResult>(Methods.commands, {})).commands;
      this.hosts.post({ type: "commands", commands: this.panel.commands });
    } catch {
      /* an older server: no custom commands */
    }
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

  dispose(): void {
    this.watcher.dispose();
  }
}
