/**
 * Expandable tool cards: the call's input (edits as a diff), the result as the
 * model saw it, and when a layer rewrote it, which one, when, and a link to the
 * original. The details come from `agent/toolResult` when a card is opened.
 */
import { structuredPatch } from "diff";
import type { ToolResult } from "../src/protocol";
import { formatChars } from "../src/shared/format";
import type * as T from "../src/shared/transcript";
import { el } from "./dom";
import { linkifyPathLines } from "./pathLinks";

export type Details = { result: ToolResult } | { error: string } | "loading";

const MARKER_TITLES: Record<string, string> = {
  truncated: "The result was cut to fit (L0)",
  budgeted: "An old result was shortened to the budget (L1)",
  snipped: "An old result was replaced by a placeholder (L2); the full text can be re-read",
  cleared: "The result was cleared from the context",
};

const LAYER_NAMES: Record<string, string> = {
  truncate: "L0 truncate",
  budget: "L1 budget",
  snip: "L2 snip",
  clear: "clear",
  microcompact: "microcompact (idle)",
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

/** old/new text of an edit as unified diff lines, each coloured by its sign. */
function diffView(path: string, before: string, after: string): HTMLElement {
  const patch = structuredPatch(path, path, before, after, "", "", { context: 2 });
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

function inputView(r: ToolResult): HTMLElement {
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
      box.append(el("div", {}, "edit ", el("code", {}, path)), diffView(path, str(i.old_text), str(i.new_text)));
      break;
    case "write_file":
      box.append(el("div", {}, "write ", el("code", {}, path)), diffView(path, "", str(i.content)));
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

export function toolBody(details: Details | undefined): HTMLElement {
  const body = el("div", { class: "tool-body" });
  if (details === undefined || details === "loading") {
    body.append(el("div", { class: "loading" }, "Loading…"));
    return body;
  }
  if ("error" in details) {
    body.append(el("div", { class: "error" }, details.error));
    return body;
  }
  const r = details.result;
  body.append(el("div", { class: "label" }, "Input"), inputView(r));
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

export function toolCard(card: T.ToolCard, open: boolean, details: Details | undefined): HTMLElement {
  const state = !card.done ? "running" : card.isError ? "error" : "ok";
  const head = el(
    "div",
    { class: "tool-head" },
    el("span", { class: `tool-state ${state}`, "aria-hidden": "true" }, state === "running" ? "⟳" : state === "error" ? "✕" : "✓"),
    el("span", { class: "tool-name" }, card.tool),
    el("code", { class: "tool-summary", title: card.summary }, card.summary),
  );
  const meta = el("div", { class: "tool-meta" });
  if (!card.done) meta.append(badge("running", "running"));
  else meta.append(el("span", { class: "size" }, formatChars(card.resultChars)));
  if (card.isError) meta.append(badge("error", "error"));
  if (card.marker) meta.append(badge(card.marker, `marker marker-${card.marker}`, MARKER_TITLES[card.marker]));
  const label = `${card.tool} ${card.summary}: ${!card.done ? "running" : card.isError ? "failed" : "done"}${card.done ? `, ${card.resultChars} characters` : ""}${card.marker ? `, ${card.marker}` : ""}`;
  const d = el("details", { class: `tool-card ${state}`, "data-tool-use-id": card.toolUseId, role: "group", "aria-label": label });
  d.open = open;
  d.append(el("summary", { title: "Show the input and the result" }, head, meta));
  if (open) d.append(toolBody(details));
  return d;
}
