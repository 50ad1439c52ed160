/** Read-only documents the panel opens: a rewritten tool result's original, a compaction's summary. */
import * as vscode from "vscode";
import type { AgentClient } from "../client";
import { Methods, type ToolResult } from "../protocol";
import type { VirtualDocs } from "../virtualDocs";
import type { Panel } from "./panel";

export class ReadOnlyDocs {
  constructor(
    private readonly agent: AgentClient,
    private readonly panel: Panel,
    private readonly docs?: VirtualDocs,
  ) {}

  /** The full original of a rewritten tool result (its context:// ref), read-only. */
  async openOriginal(toolUseId: string): Promise<void> {
    try {
      const r = await this.agent.request<ToolResult>(Methods.toolResult, { toolUseId, original: true });
      const header = `${r.ref} · ${r.tool} ${JSON.stringify(r.input)} · ${r.originalChars} chars (original, as the tool returned it)`;
      await this.open(`/context/${toolUseId} (original).txt`, `${header}\n\n${r.original ?? r.text}`);
    } catch (e) {
      this.panel.notice(`Could not open the original: ${(e as Error).message ?? e}`, "error");
    }
  }

  /** The summary the model sees after a compaction, under its divider's label. */
  openSummary(summary: string, label: string): Promise<void> {
    return this.open(`/Compaction summary.md`, `<!-- ${label} -->\n\n${summary}\n`, "markdown");
  }

  private async open(pathPart: string, text: string, language?: string): Promise<void> {
    if (!this.docs) return;
    const uri = this.docs.set(pathPart, text);
    let doc = await vscode.workspace.openTextDocument(uri);
    if (language) doc = await vscode.languages.setTextDocumentLanguage(doc, language);
    await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Active });
  }
}
