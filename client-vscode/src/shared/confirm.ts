/** Mapping between the approval dialog's buttons and `ConfirmResult`. */
import type { ConfirmParams, ConfirmResult, Permissions } from "../protocol";
import { visible } from "./visible";

export const APPROVE = "Approve";
export const ALWAYS = "Always";
export const REJECT = "Reject";

/**
 * The buttons of the native fallback (asked only when no chat panel is visible: the panel asks
 * inline). A modal (shell commands, MCP calls: the detail shows what runs) names Reject like the
 * panel does (VS Code's own Cancel also refuses). File changes are asked in a non-modal
 * notification, so the diff editor stays visible.
 */
export function confirmButtons(p: ConfirmParams): { modal: boolean; buttons: string[] } {
  if (p.kind === "shell" || p.kind === "mcp") return { modal: true, buttons: [APPROVE, ALWAYS, REJECT] };
  if (p.kind === "rewind") return { modal: true, buttons: [APPROVE] };
  if (p.kind === "rules") return { modal: true, buttons: [APPROVE, REJECT] };
  return { modal: false, buttons: [APPROVE, ALWAYS, REJECT] };
}

/** undefined = the dialog was dismissed (Escape / Cancel) → rejected. */
export function confirmResult(choice: string | undefined): ConfirmResult {
  if (choice === APPROVE) return { approved: true, remember: false };
  if (choice === ALWAYS) return { approved: true, remember: true };
  return { approved: false, remember: false };
}

export function confirmTitle(p: ConfirmParams): string {
  const title = kindTitle(p);
  // a subagent asks: named, so the user knows which of the running children wants it
  return p.subagent ? title.replace(/^The agent/, `The subagent “${visible(p.subagent)}”`) : title;
}

function kindTitle(p: ConfirmParams): string {
  switch (p.kind) {
    case "shell":
      return "The agent wants to run a shell command";
    case "write":
      return `The agent wants to write ${visible(p.path ?? "a file")}`;
    case "edit":
      return `The agent wants to edit ${visible(p.path ?? "a file")}`;
    case "mcp":
      return `The agent wants to call ${visible(p.tool ?? "a tool")} on MCP server '${visible(p.server ?? "?")}'`;
    case "rewind":
      return "Restoring would overwrite files changed outside the agent";
    case "rules":
      return `Accept the permission rules of ${visible(p.path ?? "the workspace")}? Its allow rules apply only if you accept`;
  }
}

/** What "Always" adds, said in the dialog: "Always allows: run_shell(npm test)". */
export function alwaysLine(p: ConfirmParams): string {
  return p.rules?.length ? `"Always" allows from now on: ${p.rules.map(visible).join(", ")}` : "";
}

export function confirmDetail(p: ConfirmParams): string {
  if (p.kind === "rewind") return (p.paths ?? []).map(visible).join("\n");
  if (p.kind === "rules") return visible(p.diff ?? "");
  const always = alwaysLine(p);
  const tail = always ? `\n\n${always}` : "";
  if (p.kind === "shell") return visible(p.command ?? "(no command given)") + tail;
  if (p.kind === "mcp") return visible(p.input ?? "{}") + tail;
  const lines = [visible(p.path ?? "")];
  if (p.diff) {
    const diffLines = visible(p.diff).split("\n");
    const shown = diffLines.slice(0, 40).join("\n");
    lines.push("", shown + (diffLines.length > 40 ? `\n… ${diffLines.length - 40} more lines (see the diff editor)` : ""));
  }
  return lines.join("\n").trim() + tail;
}

/** The inline approval card's buttons (in the chat panel), and what each answers. */
export type PanelChoice = "approve" | "always" | "reject";

export const PANEL_BUTTONS: { choice: PanelChoice; label: string; title: string }[] = [
  { choice: "approve", label: APPROVE, title: "Run it this once (Enter)" },
  { choice: "always", label: "Always", title: "Approve, and allow the same from now on (the rules shown)" },
  { choice: "reject", label: REJECT, title: "Refuse: the agent is told, with your reason if you give one (Escape)" },
];

/** The same answers as the modal's buttons ("Always" is `remember`), plus the reason of a refusal. */
export function panelResult(choice: PanelChoice, reason = ""): ConfirmResult {
  const result = confirmResult(choice === "approve" ? APPROVE : choice === "always" ? ALWAYS : REJECT);
  const why = reason.trim();
  if (!result.approved && why) result.reason = why.slice(0, 2000);
  return result;
}

/** Kinds the panel asks about inline; a rewind is asked by the restore flow's own modal, a workspace's
 * rules (no tool call of their own) by a modal. */
export function askedInPanel(p: ConfirmParams): boolean {
  return p.kind !== "rewind" && p.kind !== "rules";
}

/**
 * The user's `permissions` setting with "Always"'s rules added to `allow` (once each): what the
 * extension writes back to `agentls.permissions`, where the user sees and removes them.
 */
export function withAllowRules(current: Permissions | undefined, rules: readonly string[]): Permissions {
  const base: Permissions = current && typeof current === "object" ? { ...current } : {};
  const allow = Array.isArray(base.allow) ? [...base.allow] : [];
  for (const rule of rules) if (!allow.includes(rule)) allow.push(rule);
  return { ...base, allow };
}

/** Session-side memory for "Always", keyed by kind (shell vs file edits vs one MCP tool). */
export function rememberKey(p: ConfirmParams): string {
  if (p.kind === "mcp") return `mcp:${p.server ?? ""}/${p.tool ?? ""}`;
  return p.kind === "shell" ? "shell" : "write";
}
