/**
 * A subagent inside its `task` card: the steps of the child as they arrive (`subagentStarted`,
 * `subagentStep`, `subagentFinished`, docs/protocol.md), folded into the card. Pure.
 */
import type { AgentEvent, SubagentMark, SubagentStepEvent } from "../protocol";

export interface SubagentStepView {
  toolUseId: string; // the child's own tool call
  tool: string;
  summary: string;
  done: boolean;
  isError: boolean;
}

export type SubagentLine = { kind: "tool"; step: SubagentStepView } | { kind: "text"; text: string } | { kind: "note"; text: string; level: "warn" | "error" };

export interface SubagentView {
  name: string;
  model: string;
  fork: boolean;
  lines: SubagentLine[];
  done: boolean;
  isError: boolean;
  tokens: number; // every token of the child (input, output, cache read and written), once it ended
  usd: number;
  transcript: string; // context://…/transcript
}

export const MAX_LINES = 200; // a long child keeps its last steps; the transcript has them all

export function startedView(ev: Extract<AgentEvent, { kind: "subagentStarted" }>): SubagentView {
  return { name: ev.name, model: ev.model, fork: ev.fork, lines: [], done: false, isError: false, tokens: 0, usd: 0, transcript: "" };
}

export function applyStep(view: SubagentView, step: SubagentStepEvent): void {
  const last = view.lines[view.lines.length - 1];
  switch (step.kind) {
    case "textDelta":
      if (last && last.kind === "text") last.text += step.text;
      else view.lines.push({ kind: "text", text: step.text });
      break;
    case "toolStart":
      view.lines.push({ kind: "tool", step: { toolUseId: step.toolUseId, tool: step.tool, summary: step.summary, done: false, isError: false } });
      break;
    case "toolEnd": {
      const found = view.lines.find((l) => l.kind === "tool" && l.step.toolUseId === step.toolUseId);
      if (found && found.kind === "tool") Object.assign(found.step, { done: true, isError: step.isError, summary: step.summary || found.step.summary });
      else view.lines.push({ kind: "tool", step: { toolUseId: step.toolUseId, tool: step.tool, summary: step.summary, done: true, isError: step.isError } });
      break;
    }
    case "error":
      view.lines.push({ kind: "note", text: step.message, level: "error" });
      break;
    case "retry":
      view.lines.push({ kind: "note", text: `Retrying (attempt ${step.attempt}): ${step.reason}`, level: "warn" });
      break;
    default:
      return;
  }
  if (view.lines.length > MAX_LINES) view.lines.splice(0, view.lines.length - MAX_LINES);
}

export function finish(view: SubagentView, ev: Extract<AgentEvent, { kind: "subagentFinished" }>): void {
  view.done = true;
  view.isError = ev.isError;
  const u = ev.usage;
  view.tokens = u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens;
  view.usd = ev.usd;
  view.transcript = ev.transcript;
  for (const l of view.lines) if (l.kind === "tool" && !l.step.done) l.step.done = true; // stopped with it
}

/** A card of the transcript of record (a resumed or reloaded panel): the subagent as it ended. */
export function viewOfMark(m: SubagentMark): SubagentView {
  const lines: SubagentLine[] = m.steps.map((s, i) => ({
    kind: "tool",
    step: { toolUseId: `step-${i}`, tool: s.tool, summary: s.summary, done: true, isError: s.isError },
  }));
  return { name: m.name, model: m.model, fork: m.fork, lines, done: true, isError: m.isError, tokens: m.tokens, usd: m.usd, transcript: m.transcript };
}
