/**
 * The chat header's model picker, host side: `agent/models` for the endpoint's list (or the
 * server's offline table, labelled as such) and the model that answers; a choice is written
 * to the `agentls.model` setting (beside the base URL: settingWriter.ts), which reaches the server as didChangeConfiguration, so the
 * next request uses it.
 */
import type { AgentClient } from "./client";
import { Methods, type ModelsResult } from "./protocol";
import type { ToWebview } from "./shared/messages";
import { writeAgentSetting } from "./settingWriter";

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
      this.post({
        type: "models",
        models: r.models,
        source: r.source,
        note: r.note,
        current: r.current,
        configured: r.configured,
        demo: r.demo,
      });
    } catch {
      /* the server is not running (yet): the picker keeps what it had */
    }
  }

  async choose(model: string): Promise<void> {
    await writeAgentSetting("model", model.trim() || undefined, "baseUrl"); // beside the endpoint that lists it
  }
}
