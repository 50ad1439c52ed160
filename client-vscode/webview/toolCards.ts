/**
 * Expandable tool cards: the call's input (edits as a diff), the result as the
 * model saw it, and when a layer rewrote it, which one, when, and a link to the
 * original. The details come from `agent/toolResult` when a card is opened.
 */
import { structuredPatch } from "diff";
import type { ToolResult } from "../src/protocol";
import { formatChars } from "../src/shared/format";
import { visible } from "../src/shared/visible";
import type * as T from "../src/shared/transcript";
import { el } from "./dom";
import { linkifyPathLines } from "./pathLinks";
import { subagentMeta, subagentSteps } from "./subagentCard";

export type Details = { result: ToolResult } | { error: string } | "loading";

const MARKER_TITLES: Record<string, string> = {
  truncated: "The result was cut to fit (L0)",
  budgeted: "An old result was shortened to the budget (L1)",
  snipped: "An old result was replaced by a placeholder (L2); the full text can be re-read",
  cleared: "The result was cleared from the context",
  folded: "The call and its result left the context: one index line says what was done and where the original is",
};

const LAYER_NAMES: Record<string, string> = {
  truncate: "L0 truncate",
  budget: "L1 budget",
  snip: "L2 snip",
  clear: "clear",
  microcompact: "microcompact (idle)",
  fold: "fold",
  compacted: "L3 compaction",
};

function badge(text: string, cls: string, title?: string): HTMLElement {
  const b = el("span", { class: `badge ${cls}` }, text);
  if (title) b.title = title;
  return b;
}

function str(v: unknown): string {
  return typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v, null, 2);
}

/**
 * A unified diff as the server made it (the file's own line numbers, three lines of context), each line
 * coloured by its sign; control characters shown escaped, so what is approved is what is written.
 */
export function unifiedDiffView(diff: string): HTMLElement {
  const pre = el("pre", { class: "tool-diff" });
  for (const raw of diff.replace(/\n$/, "").split("\n")) {
    if (raw.startsWith("--- ") || raw.startsWith("+++ ")) continue; // the card names the file
    const line = visible(raw);
    const cls = raw.startsWith("@@") ? "hunk" : raw.startsWith("+") ? "add" : raw.startsWith("-") ? "del" : "ctx";
    pre.append(el("span", { class: cls }, line + "\n"));
  }
  return pre;
}

/** old/new text of an edit when no diff was recorded (line numbers relative to the edited text). */
function diffView(path: string, before: string, after: string): HTMLElement {
  const patch = structuredPatch(path, path, before, after, "", "", { context: 3 });
  const pre = el("pre", { class: "tool-diff" });
  for (const hunk of patch.hunks) {
    pre.append(el("span", { class: "hunk" }, `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@\n`));
    for (const line of hunk.lines) {
      const cls = line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "ctx";
      pre.append(el("span", { class: cls }, line + "\n"));
    }
  }
  return pre;
}

function inputView(r: ToolResult, recordedDiff?: string): HTMLElement {
  const i = r.input ?? {};
  const box = el("div", { class: "tool-input" });
  const path = str(i.path);
  switch (r.tool) {
    case "run_shell":
      box.append(el("pre", { class: "command" }, `$ ${str(i.command)}`));
      break;
    case "grep_search":
      box.append(el("div", {}, "pattern ", el("code", {}, str(i.pattern)), ...(path ? [" in ", el("code", {}, path)] : []), ...(i.glob ? [" glob ", el("code", {}, str(i.glob))] : [])));
      break;
    case "edit_file":
      box.append(el("div", {}, "edit ", el("code", {}, path)), recordedDiff ? unifiedDiffView(recordedDiff) : diffView(path, str(i.old_text), str(i.new_text)));
      break;
    case "write_file":
      box.append(el("div", {}, "write ", el("code", {}, path)), recordedDiff ? unifiedDiffView(recordedDiff) : diffView(path, "", str(i.content)));
      break;
    default:
      if (path && Object.keys(i).length === 1) box.append(el("div", {}, "path ", el("code", {}, path)));
      else box.append(el("pre", {}, JSON.stringify(i, null, 2)));
  }
  return box;
}

function when(iso: string): string {
  return iso ? ` at ${iso.slice(11, 19)} UTC` : "";
}

function rewriteView(r: ToolResult): HTMLElement | undefined {
  if (!r.marker) return undefined;
  const layer = LAYER_NAMES[r.layer] ?? r.layer;
  const text =
    r.marker === "compacted"
      ? "Summarised away by a compaction: the model now sees only the summary."
      : `${r.marker[0].toUpperCase()}${r.marker.slice(1)} by the ${layer} layer${when(r.rewrittenAt)}: the model saw what is shown above, not the original (${formatChars(r.originalChars)}).`;
  const box = el("div", { class: "rewrite" }, text);
  if (r.ref) {
    const a = el("a", { href: "#", class: "open-original", "data-tool-use-id": r.toolUseId, title: `Open ${r.ref} read-only` }, `Open the original (${r.ref})`);
    box.append(" ", a);
  }
  return box;
}

export function toolBody(details: Details | undefined, card?: T.ToolCard): HTMLElement {
  const body = el("div", { class: "tool-body" });
  if (card?.subagent) body.append(subagentSteps(card.subagent)); // live: re-rendered with each step
  if (card?.subagent && !card.done) return body; // its answer comes when it ends
  if (details === undefined || details === "loading") {
    body.append(el("div", { class: "loading" }, "Loading…"));
    return body;
  }
  if ("error" in details) {
    body.append(el("div", { class: "error" }, details.error));
    return body;
  }
  const r = details.result;
  body.append(el("div", { class: "label" }, "Input"), inputView(r, card?.diff));
  if (card?.approval === "rejected" || card?.approval === "refused") {
    const why = card.reason ? `: “${card.reason}” (the agent was told)` : "";
    body.append(el("div", { class: "approval-outcome" }, `${card.approval === "rejected" ? "You rejected it" : "Refused by your settings"}${why}.`));
  }
  const label = r.marker === "compacted" ? "Result" : r.sent ? "Result as the model saw it" : "Result (not sent to the model yet)";
  body.append(el("div", { class: "label" }, label));
  if (r.marker !== "compacted") {
    const out = el("pre", { class: "tool-output" }, r.text);
    linkifyPathLines(out);
    body.append(out);
  }
  const rewrite = rewriteView(r);
  if (rewrite) body.append(rewrite);
  return body;
}

const STATE_ICONS: Record<string, string> = { waiting: "?", running: "⟳", error: "✕", ok: "✓" };
const APPROVAL_BADGES: Record<string, { text: string; cls: string; title: string }> = {
  approved: { text: "approved", cls: "outcome-approved", title: "You approved it" },
  always: { text: "always", cls: "outcome-approved", title: "You approved it for the rest of the session" },
  rejected: { text: "rejected", cls: "error", title: "You rejected it; the agent was told" },
  refused: { text: "refused", cls: "error", title: "Refused by your approval settings" },
};

export function toolCard(card: T.ToolCard, open: boolean, details: Details | undefined): HTMLElement {
  const waiting = card.approval === "waiting" && !card.done;
  const state = waiting ? "waiting" : !card.done ? "running" : card.isError ? "error" : "ok";
  const head = el(
    "div",
    { class: "tool-head" },
    el("span", { class: `tool-state ${state}`, "aria-hidden": "true" }, STATE_ICONS[state]),
    el("span", { class: "tool-name" }, card.tool),
    el("code", { class: "tool-summary", title: card.summary }, card.summary),
  );
  const meta = el("div", { class: "tool-meta" });
  if (card.subagent) meta.append(subagentMeta(card.subagent));
  if (waiting) meta.append(badge("waiting for approval", "waiting", "The agent waits for your answer below"));
  else if (!card.done) meta.append(badge("running", "running"));
  else meta.append(el("span", { class: "size" }, formatChars(card.resultChars)));
  if (card.stopped) meta.append(badge("stopped", "error", "The tool never returned: the turn was stopped"));
  else if (card.isError) meta.append(badge("error", "error"));
  const outcome = card.approval && card.approval !== "waiting" ? APPROVAL_BADGES[card.approval] : undefined;
  if (outcome) meta.append(badge(outcome.text, `outcome ${outcome.cls}`, card.reason ? `${outcome.title}: ${card.reason}` : outcome.title));
  if (card.marker) meta.append(badge(card.marker, `marker marker-${card.marker}`, MARKER_TITLES[card.marker]));
  const status = waiting ? "waiting for approval" : !card.done ? "running" : card.isError ? "failed" : "done";
  const label = `${card.tool} ${card.summary}: ${status}${card.done ? `, ${card.resultChars} characters` : ""}${card.marker ? `, ${card.marker}` : ""}${outcome ? `, ${outcome.text}` : ""}`;
  const kind = card.subagent ? " subagent-card" : "";
  const d = el("details", { class: `tool-card ${state}${kind}`, "data-tool-use-id": card.toolUseId, role: "group", "aria-label": label });
  d.open = open;
  d.append(el("summary", { title: "Show the input and the result" }, head, meta));
  if (open) d.append(toolBody(details, card));
  return d;
}
