/**
 * The chat header's model: its label (from agent/contextUsage, else agent/cost), the picker's
 * list (refreshed when the model or its window changes) and a pick while the demo model answers.
 */
import * as vscode from "vscode";
import type { AgentClient } from "../client";
import { ModelChoice } from "../modelChoice";
import { Methods, type ContextUsage, type CostResult } from "../protocol";
import type { Hosts } from "./hosts";
import type { Panel } from "./panel";

/**
 * The model label from agent/contextUsage (`model`, `demo`); read defensively,
 * since an older server may not send them.
 */
export function modelLabelOf(u: unknown): string | undefined {
  const x = u as { model?: unknown; demo?: unknown };
  if (x?.demo === true) return "demo model (offline)";
  return typeof x?.model === "string" && x.model ? x.model : undefined;
}

export class ModelHeader {
  private labelFromUsage = false;
  private modelsKey = ""; // model|window of the last list sent to the picker
  readonly models: ModelChoice;

  constructor(
    private readonly agent: AgentClient,
    private readonly panel: Panel,
    hosts: Hosts,
  ) {
    this.models = new ModelChoice(agent, (m) => hosts.post(m));
  }

  /** agent/contextUsage: the label, and the picker's list when the model or its window changed. */
  usage(u: ContextUsage): void {
    const label = modelLabelOf(u);
    if (label) this.labelFromUsage = true;
    if (label && label !== this.panel.modelLabel) this.panel.setModelLabel(label);
    // the picker shows the model that answers now, from the list it came with (a new
    // endpoint's list arrives with its model and window)
    const listKey = `${label}|${u.modelWindow ?? ""}`;
    if (label && listKey !== this.modelsKey) {
      this.modelsKey = listKey;
      void this.models.refresh();
    }
  }

  /** The label from agent/cost, for a server that does not name its model in agent/contextUsage. */
  async refresh(): Promise<void> {
    if (this.labelFromUsage) return;
    try {
      const c = await this.agent.request<CostResult>(Methods.cost, {});
      if (c.model && c.model !== this.panel.modelLabel) this.panel.setModelLabel(c.model);
    } catch {
      /* not fatal */
    }
  }

  /** A cost answer names the model too. */
  fromCost(c: CostResult): void {
    if (c.model && !this.labelFromUsage) this.panel.setModelLabel(c.model);
  }

  /** A pick in the header's picker. */
  async choose(model: string): Promise<void> {
    await this.models.choose(model);
    if (this.models.demo) this.explainDemo(model);
  }

  /** A model was picked while the offline demo model answers: say why it still answers, offer a key. */
  private explainDemo(model: string): void {
    const why = (name: string) =>
      `The offline demo model still answers: no API key is set, so ${name} cannot be reached yet. ` +
      "Your choice is kept and used as soon as a key is set (Agent: Set API Key).";
    this.panel.notice(why(`\`${model}\``), "warn");
    void this.models.refresh(); // the picker shows the model that answers, not the one asked for
    void vscode.window.showInformationMessage(`Agent: ${why(model)}`, "Set API Key").then((pick) => {
      if (pick) void vscode.commands.executeCommand("agentls.setApiKey");
    });
  }
}
