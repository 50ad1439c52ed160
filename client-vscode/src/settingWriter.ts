/** Writing an `agentls.*` setting where it takes effect: a workspace value would shadow a user one. */
import * as vscode from "vscode";

export async function writeAgentSetting(key: string, value: unknown): Promise<void> {
  const config = vscode.workspace.getConfiguration("agentls");
  const inspected = config.inspect(key);
  const target =
    inspected?.workspaceFolderValue !== undefined
      ? vscode.ConfigurationTarget.WorkspaceFolder
      : inspected?.workspaceValue !== undefined
        ? vscode.ConfigurationTarget.Workspace
        : vscode.ConfigurationTarget.Global;
  await config.update(key, value, target);
}
