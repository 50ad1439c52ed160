/**
 * The inline approval card: what the agent wants to do (the command, the diff, the MCP call), and
 * Approve / Always / Reject with an optional reason, inside the transcript under the asking tool's
 * card. Keyboard first: the card takes the focus when it appears (Approve), Tab walks its buttons
 * and the reason field, Enter answers, Escape rejects; Enter in the reason field rejects with it.
 * "Always" adds the permission rules the request carries (said on the card), kept in agentls.permissions.
 */
import type { ConfirmParams } from "../src/protocol";
import { PANEL_BUTTONS, alwaysLine, confirmTitle, type PanelChoice } from "../src/shared/confirm";
import { visible } from "../src/shared/visible";
import { el } from "./dom";
import { unifiedDiffView } from "./toolCards";

export type Answer = (choice: PanelChoice, reason: string) => void;

function what(p: ConfirmParams): HTMLElement {
  if (p.kind === "shell") return el("pre", { class: "approval-command" }, `$ ${visible(p.command ?? "(no command given)")}`);
  if (p.kind === "mcp") return el("pre", { class: "approval-input" }, visible(p.input ?? "{}"));
  if (p.kind === "rewind") return el("pre", { class: "approval-input" }, (p.paths ?? []).map(visible).join("\n"));
  const box = el("div", { class: "approval-change" }, el("div", { class: "approval-path" }, el("code", {}, visible(p.path ?? ""))));
  box.append(p.diff ? unifiedDiffView(p.diff) : el("div", {}, "(no diff given)"));
  return box;
}

/**
 * The card; `reasons` keeps what was typed in the reason field across re-renders (by approval id).
 */
export function approvalCard(id: string, p: ConfirmParams, reasons: Map<string, string>, answer: Answer): HTMLElement {
  const title = confirmTitle(p);
  const card = el("div", { class: "approval", role: "group", "aria-label": `Approval needed: ${title}`, "data-approval-id": id });
  const reason = el("input", {
    class: "approval-reason-input",
    type: "text",
    "aria-label": "Reason for rejecting (optional, told to the agent)",
    placeholder: "Reason (optional; Enter rejects with it)",
  });
  reason.value = reasons.get(id) ?? "";
  reason.addEventListener("input", () => reasons.set(id, reason.value));
  const actions = el("div", { class: "approval-actions" });
  for (const b of PANEL_BUTTONS) {
    const button = el("button", { type: "button", class: b.choice === "approve" ? "primary" : "", "data-choice": b.choice, title: b.title }, b.label);
    button.addEventListener("click", () => answer(b.choice, reason.value));
    actions.append(button);
  }
  card.addEventListener("keydown", (e) => {
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation(); // not the turn's Stop: this answers the question
      answer("reject", reason.value);
    } else if (e.key === "Enter" && e.target === reason) {
      e.preventDefault();
      answer("reject", reason.value);
    }
  });
  const always = alwaysLine(p);
  card.append(
    el("div", { class: "approval-title" }, el("span", { class: "approval-icon", "aria-hidden": "true" }, "?"), title),
    what(p),
    ...(always ? [el("div", { class: "approval-always" }, always)] : []),
    actions,
    el("label", { class: "approval-reason" }, reason),
  );
  return card;
}
