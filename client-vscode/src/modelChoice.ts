/**
 * The chat header's model picker, host side: `agent/models` for the list and the model
 * that answers; a choice is written to the `agentls.model` setting, which reaches the
 * server as didChangeConfiguration, so the next request uses it.
 */
import * as vscode from "vscode";
import type { AgentClient } from "./client";
import { Methods, type ModelsResult } from "./protocol";
import type { ToWebview } from "./shared/messages";

export class ModelChoice {
  demo = false; // the offline demo model answers (as of the last agent/models)

  constructor(
    private readonly agent: AgentClient,
    private readonly post: (m: ToWebview) => void,
  ) {}

  /** Sends the list and the current model to the webviews (quietly does nothing without a server). */
  async refresh(): Promise<void> {
    try {
      const r = await this.agent.request<ModelsResult>(Methods.models, {});
      this.demo = r.demo;
      this.post({ type: "models", models: r.models, current: r.current, configured: r.configured, demo: r.demo });
    } catch {
      /* the server is not running (yet): the picker keeps what it had */
    }
  }

  async choose(model: string): Promise<void> {
    const id = model.trim();
    const config = vscode.workspace.getConfiguration("agentls");
    // Write where it takes effect: a workspace value would shadow a user (global) one.
    const inspected = config.inspect<string>("model");
    const target =
      inspected?.workspaceFolderValue !== undefined
        ? vscode.ConfigurationTarget.WorkspaceFolder
        : inspected?.workspaceValue !== undefined
          ? vscode.ConfigurationTarget.Workspace
          : vscode.ConfigurationTarget.Global;
    await config.update("model", id || undefined, target);
  }
}
