/** Writing an `agentls.*` setting where it takes effect: a workspace value would shadow a user one. */
import * as vscode from "vscode";

export type SettingScope = "workspaceFolder" | "workspace" | "user";

interface Inspected {
  workspaceFolderValue?: unknown;
  workspaceValue?: unknown;
}

function scopeOf(inspected: Inspected | undefined): SettingScope | undefined {
  if (inspected?.workspaceFolderValue !== undefined) return "workspaceFolder";
  if (inspected?.workspaceValue !== undefined) return "workspace";
  return undefined;
}

/**
 * Where a value goes: where the setting already has one that would shadow it, else beside the setting it
 * belongs with (`nextTo`: a model goes where the base URL that lists it was set, so a workspace's endpoint
 * does not get a model meant for it in every other workspace), else the user's settings.
 */
export function targetFor(own: Inspected | undefined, nextTo?: Inspected): SettingScope {
  return scopeOf(own) ?? scopeOf(nextTo) ?? "user";
}

const TARGETS: Record<SettingScope, () => vscode.ConfigurationTarget> = {
  workspaceFolder: () => vscode.ConfigurationTarget.WorkspaceFolder,
  workspace: () => vscode.ConfigurationTarget.Workspace,
  user: () => vscode.ConfigurationTarget.Global,
};

export async function writeAgentSetting(key: string, value: unknown, nextTo?: string): Promise<SettingScope> {
  const config = vscode.workspace.getConfiguration("agentls");
  const scope = targetFor(config.inspect(key), nextTo ? config.inspect(nextTo) : undefined);
  await config.update(key, value, TARGETS[scope]());
  return scope;
}
