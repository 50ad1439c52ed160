/**
 * `agent/confirm` asked inside the chat: an inline card on the asking tool call's card. While
 * no chat view is on screen, the native question (approvals.ts) asks instead; a question that
 * waits when every view is hidden is asked natively too (the first answer wins).
 */
import type * as vscode from "vscode";
import type { AgentClient } from "../client";
import type { ConfirmParams, ConfirmResult } from "../protocol";
import { panelResult, type PanelChoice } from "../shared/confirm";
import * as T from "../shared/transcript";
import type { Host, Hosts } from "./hosts";
import type { Panel } from "./panel";

/** An approval asked in the panel, waiting for the user's answer. */
interface PendingApproval {
  params: ConfirmParams;
  answer: (r: ConfirmResult) => void;
  fallback?: () => Promise<ConfirmResult>; // the native question, once no chat view shows this one
  asking?: boolean; // the fallback is on screen
}

const REFUSED: ConfirmResult = { approved: false, remember: false };

export class PanelApprovals {
  private readonly pending = new Map<string, PendingApproval>();
  private seq = 0;

  constructor(
    private readonly agent: AgentClient,
    private readonly panel: Panel,
    private readonly hosts: Hosts,
  ) {}

  /**
   * Asks on the call's card; undefined when no chat view is visible (the caller falls back to
   * the native question).
   */
  ask(params: ConfirmParams, token?: vscode.CancellationToken, fallback?: () => Promise<ConfirmResult>): Promise<ConfirmResult> | undefined {
    if (!this.hosts.anyVisible) {
      this.agent.log.info(`approval (${params.kind}): no chat view visible, asked natively`);
      return undefined;
    }
    const id = `approval-${++this.seq}`;
    this.agent.log.info(`approval (${params.kind}) asked in the panel as ${id}`);
    return new Promise<ConfirmResult>((resolve) => {
      const done = (r: ConfirmResult) => {
        if (!this.pending.delete(id)) return;
        sub?.dispose();
        this.hosts.post({ type: "approvalDone", id });
        resolve(r);
      };
      // the server withdrew the question (its timeout, a stopped turn): the card goes, nothing runs
      const sub = token?.onCancellationRequested(() => done(REFUSED));
      this.pending.set(id, { params, answer: done, fallback });
      this.panel.emit({ type: "approval", id, params }); // the call's card waits
    });
  }

  /** The user's answer in a view. */
  answer(id: string, choice: PanelChoice, reason: string): void {
    const pending = this.pending.get(id);
    if (!pending) return; // answered already (another view, or withdrawn)
    const result = panelResult(choice, reason);
    const toolUseId = pending.params.toolUseId;
    if (toolUseId) T.answerApproval(this.panel.transcript, toolUseId, result.approved ? (result.remember ? "always" : "approved") : "rejected");
    pending.answer(result);
  }

  /** The questions still waiting, to a view that just opened. */
  replay(host: Host): void {
    for (const [id, a] of this.pending) this.hosts.post({ type: "approval", id, params: a.params }, host);
  }

  /** Every question still open is withdrawn (its turn ended: stopped, or the server went away). */
  withdrawAll(): void {
    for (const pending of [...this.pending.values()]) pending.answer(REFUSED);
  }

  /** Every chat view hidden while questions wait: they are asked natively too (first answer wins). */
  visibilityChanged(): void {
    if (this.hosts.anyVisible) return;
    if (this.pending.size) this.agent.log.info(`chat hidden: ${this.pending.size} waiting approval(s) asked natively too`);
    else this.agent.log.debug("chat hidden");
    for (const pending of this.pending.values()) {
      if (!pending.fallback || pending.asking) continue;
      pending.asking = true;
      void pending.fallback().then((r) => pending.answer(r), () => pending.answer(REFUSED));
    }
  }
}
