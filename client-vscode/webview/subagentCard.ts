/**
 * A subagent's `task` card: closed, its name, model, step count and its latest step (live);
 * open, every step of the child (its tool calls and what it wrote), then the answer it gave.
 */
import { formatTokens, formatUsd } from "../src/shared/format";
import type { SubagentLine, SubagentView } from "../src/shared/subagents";
import { el } from "./dom";

function toolSteps(view: SubagentView): number {
  return view.lines.filter((l) => l.kind === "tool").length;
}

/** What the closed card says beside its name: "3 steps · Read notes.md" while it runs; tokens and cost once done. */
export function subagentMeta(view: SubagentView): HTMLElement {
  const steps = toolSteps(view);
  const last = [...view.lines].reverse().find((l) => l.kind === "tool");
  const parts = [`${steps} step${steps === 1 ? "" : "s"}`];
  if (!view.done && last && last.kind === "tool") parts.push(last.step.summary || last.step.tool);
  if (view.done) parts.push(`${formatTokens(view.tokens)} tokens`, formatUsd(view.usd));
  const fork = view.fork ? " · fork" : "";
  return el("span", { class: "subagent-meta", title: `Subagent on ${view.model}${fork}` }, `subagent${fork} · ${parts.join(" · ")}`);
}

function line(l: SubagentLine): HTMLElement {
  if (l.kind === "text") return el("li", { class: "subagent-text" }, l.text.trim());
  if (l.kind === "note") return el("li", { class: `subagent-note ${l.level}` }, l.text);
  const state = !l.step.done ? "running" : l.step.isError ? "error" : "ok";
  const icon = { running: "⟳", error: "✕", ok: "✓" }[state];
  return el(
    "li",
    { class: `subagent-step ${state}`, "data-step-id": l.step.toolUseId },
    el("span", { class: `tool-state ${state}`, "aria-hidden": "true" }, icon),
    el("span", { class: "tool-name" }, l.step.tool),
    " ",
    el("code", {}, l.step.summary),
  );
}

/** The child's steps, in order, inside the open card. */
export function subagentSteps(view: SubagentView): HTMLElement {
  const box = el("div", { class: "subagent-steps" });
  box.append(el("div", { class: "label" }, `Steps of “${view.name}” (${view.model}${view.fork ? ", forked from this conversation" : ""})`));
  const list = el("ol", { class: "subagent-lines" });
  for (const l of view.lines) if (l.kind !== "text" || l.text.trim()) list.append(line(l));
  if (!view.lines.length) list.append(el("li", { class: "subagent-note" }, view.done ? "No steps." : "Starting…"));
  box.append(list);
  if (view.transcript) {
    // opened like a rewritten result's original: agent/toolResult with `<task call id>/transcript`
    const id = view.transcript.replace(/^context:\/\//, "");
    const link = el("a", { href: "#", class: "open-original", "data-tool-use-id": id, title: `Open ${view.transcript} read-only` }, "Open the full transcript");
    box.append(el("div", { class: "subagent-transcript" }, link, " (", el("code", {}, view.transcript), ")"));
  }
  return box;
}
