/**
 * The approvals asked in this view (agent/confirm, relayed by the extension), by id: each is
 * shown on its tool call's card, or after the log when no card of the transcript asks it.
 */
import type { ConfirmParams } from "../src/protocol";
import type { PanelChoice } from "../src/shared/confirm";
import * as T from "../src/shared/transcript";
import { approvalCard } from "./approvalCard";
import { post } from "./host";
import { approvalJump, input, log } from "./layout";
import { flush, schedule } from "./schedule";
import { state } from "./state";

const approvals = new Map<string, ConfirmParams>();
const reasons = new Map<string, string>(); // what was typed in each one's reason field
let focusNext: string | undefined; // a card that just appeared takes the focus once rendered

/** Asked now: shown (and focused) at the next render. */
export function asked(id: string, params: ConfirmParams): void {
  approvals.set(id, params);
  focusNext = id;
}

/** Answered in another view, or withdrawn: true when it was shown here. */
export function done(id: string): boolean {
  reasons.delete(id);
  return approvals.delete(id);
}

export function clearApprovals(): void {
  approvals.clear();
}

export function approvalFor(toolUseId: string): [string, ConfirmParams] | undefined {
  for (const entry of approvals) if (entry[1].toolUseId === toolUseId) return entry;
  return undefined;
}

function answer(id: string, choice: PanelChoice, reason: string): void {
  const params = approvals.get(id);
  if (!params) return;
  approvals.delete(id);
  reasons.delete(id);
  post({ type: "approvalAnswer", id, choice, reason });
  if (params.toolUseId) T.answerApproval(state.transcript, params.toolUseId, choice === "approve" ? "approved" : choice === "always" ? "always" : "rejected");
  // the card goes as the key or click that answered it is handled, not a frame later
  schedule(true);
  flush();
  input.focus(); // back where the user types
}

export function renderApproval(id: string, params: ConfirmParams): HTMLElement {
  return approvalCard(id, params, reasons, (choice, reason) => answer(id, choice, reason));
}

/** The approvals no card of the transcript asks (the card is not shown, or none named): after the log. */
export function placeLooseApprovals(): void {
  log.querySelectorAll(":scope > .approval").forEach((a) => a.remove());
  const shown = new Set([...log.querySelectorAll<HTMLElement>(".approval")].map((a) => a.dataset.approvalId));
  log.append(...[...approvals].filter(([id]) => !shown.has(id)).map(([id, params]) => renderApproval(id, params)));
}

/** Focus after a render: a card that just appeared, else the control of a card that had it before. */
export function focusAfterRender(refocus: { id?: string; choice?: string; reason?: boolean } | undefined): void {
  if (focusNext) {
    const card = log.querySelector<HTMLElement>(`.approval[data-approval-id="${focusNext}"]`);
    focusNext = undefined;
    card?.scrollIntoView({ block: "nearest" });
    card?.querySelector<HTMLElement>('button[data-choice="approve"]')?.focus();
  } else if (refocus) {
    const card = log.querySelector<HTMLElement>(`.approval[data-approval-id="${refocus.id}"]`);
    const again = refocus.reason ? card?.querySelector<HTMLElement>("input") : card?.querySelector<HTMLElement>(`button[data-choice="${refocus.choice}"]`);
    again?.focus();
  }
}

/** Where the focus is in an approval card before a render replaces it. */
export function focusBeforeRender(): { id?: string; choice?: string; reason?: boolean } | undefined {
  const focused = document.activeElement as HTMLElement | null;
  const inApproval = focused?.closest<HTMLElement>(".approval");
  return inApproval ? { id: inApproval.dataset.approvalId, choice: focused?.dataset.choice, reason: focused?.matches("input") } : undefined;
}

/** The composer's "Approval waiting" button: shown while one waits, it scrolls to the oldest and focuses it. */
export function showApprovalJump(): void {
  approvalJump.hidden = approvals.size === 0;
  approvalJump.textContent = approvals.size > 1 ? `${approvals.size} approvals waiting ↑` : "Approval waiting ↑";
}

export function goToApproval(): void {
  const card = log.querySelector<HTMLElement>(".approval");
  card?.scrollIntoView({ block: "nearest" });
  card?.querySelector<HTMLElement>('button[data-choice="approve"]')?.focus();
}

approvalJump.addEventListener("click", goToApproval);
