/** Agent: Show MCP Servers — a quick pick of the servers, their state and tools (agent/mcpServers). */
import * as vscode from "vscode";
import type { AgentClient } from "./client";
import { Methods, type McpServersResult } from "./protocol";
import { mcpPickRows, type McpPickRow } from "./shared/mcp";

export async function showMcpServers(agent: AgentClient): Promise<void> {
  let result: McpServersResult;
  try {
    result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: "Agent: starting MCP servers…" },
      () => agent.request<McpServersResult>(Methods.mcpServers, {}),
    );
  } catch (e) {
    void vscode.window.showWarningMessage(`Agent: MCP servers are not available: ${(e as Error).message ?? e}`);
    return;
  }
  if (result.servers.length === 0) {
    const open = "Open Settings";
    const choice = await vscode.window.showInformationMessage("Agent: no MCP servers configured (agentls.mcpServers).", open);
    if (choice === open) await vscode.commands.executeCommand("workbench.action.openSettings", "agentls.mcpServers");
    return;
  }
  type Item = vscode.QuickPickItem & { row: McpPickRow };
  const items: Item[] = mcpPickRows(result).map((row) => ({ label: row.label, description: row.description, detail: row.detail, row }));
  const picked = await vscode.window.showQuickPick(items, {
    title: `Agent: MCP servers (tool-list changes this session: ${result.toolListChanges})`,
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!picked) return;
  const server = result.servers.find((s) => s.name === picked.row.server);
  if (server?.error) void vscode.window.showWarningMessage(`Agent: ${server.error}`);
}
