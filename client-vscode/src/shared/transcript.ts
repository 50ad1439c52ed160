/**
 * The conversation as the panel shows it: one reducer over the messages the extension posts to
 * its chat views (user messages, `agent/event`s, turn ends, notices, approvals). The extension
 * folds each message into its live copy as it posts it (a view that opens later starts from that
 * copy), and every webview folds the same message the same way. Nothing here is stored: after a
 * reload the panel starts from the server's transcript of record (transcriptOfRecord.ts). Pure.
 */
import type { AgentEvent, ConfirmParams, ToolApproval, ToolMarker, ToolResult } from "../protocol";
import { formatSeconds, formatTokens } from "./format";
import { type SubagentView, applyStep, finish, startedView } from "./subagents";

export interface ToolCard {
  toolUseId: string;
  tool: string;
  summary: string;
  done: boolean;
  isError: boolean;
  resultChars: number;
  marker: ToolMarker | string;
  /** "waiting": the panel asks about it now; then how it was decided (toolEnd / the transcript of record) */
  approval?: ToolApproval | "waiting";
  diff?: string; // write/edit: the change as approved (unified, the file's line numbers)
  reason?: string; // the user's words when they rejected it
  stopped?: boolean; // the tool never returned (the turn was stopped, the window closed)
  subagent?: SubagentView; // a `task` call: its subagent's steps, shown inside the card (shared/subagents.ts)
}

/** A compaction: before → after tokens, why, and the summary message the model now sees. */
export interface Divider {
  tokensBefore: number;
  tokensAfter: number;
  reason: "auto" | "manual";
  summary: string;
}

export type Block =
  | { kind: "text"; text: string }
  | { kind: "thinking"; text: string }
  | { kind: "tool"; card: ToolCard }
  | { kind: "note"; text: string; level: "info" | "warn" | "error" }
  | { kind: "compaction"; divider: Divider };

export type TranscriptItem =
  | { role: "user"; text: string; attachments: string[]; checkpoint?: string } // checkpoint: taken before it
  | {
      role: "assistant";
      turnId: string;
      blocks: Block[];
      status: "streaming" | "done" | "cancelled" | "error";
      footer?: string;
      rewound?: boolean; // a restore took this turn's file changes back: its tool cards are greyed
    }
  | { role: "notice"; markdown: string; level: "info" | "warn" | "error"; testId?: string; action?: NoticeAction } // testId: for e2e tests
  | { role: "compaction"; divider: Divider };

/** A button on a notice, and what the view posts when it is pressed (Undo after a restore: the undo's restore). */
export interface NoticeAction {
  label: string;
  title: string;
  post: { type: "restore"; checkpoint: string; restore: "code"; prompt: string };
}

export interface Transcript {
  items: TranscriptItem[];
}

export const MAX_ITEMS = 400;

export function emptyTranscript(): Transcript {
  return { items: [] };
}

type Assistant = Extract<TranscriptItem, { role: "assistant" }>;

function lastAssistant(t: Transcript): Assistant | undefined {
  const last = t.items[t.items.length - 1];
  return last && last.role === "assistant" ? last : undefined;
}

/** The open assistant item for `turnId`, created when needed. */
function assistantFor(t: Transcript, turnId: string): Assistant {
  const found = findAssistant(t, turnId);
  linkCheckpoint(t, found, turnId);
  return found;
}

/** The user message a turn answers gets the turn's id as its checkpoint (the server's convention). */
function linkCheckpoint(t: Transcript, a: Assistant, turnId: string): void {
  if (!turnId) return;
  const at = t.items.lastIndexOf(a);
  for (let i = at - 1; i >= 0; i--) {
    const it = t.items[i];
    if (it.role === "user") {
      if (!it.checkpoint) it.checkpoint = turnId;
      return;
    }
    if (it.role === "assistant") return;
  }
}

/** Grey the turns whose file changes a restore took back (ids: rewound checkpoints). */
export function markRewound(t: Transcript, ids: Set<string>): void {
  for (const it of t.items) if (it.role === "assistant") it.rewound = ids.has(it.turnId) || undefined;
}

function findAssistant(t: Transcript, turnId: string): Assistant {
  for (let i = t.items.length - 1; i >= 0; i--) {
    const it = t.items[i];
    if (it.role === "assistant" && it.turnId === turnId && turnId !== "") return it;
    if (it.role === "user") break;
  }
  const last = lastAssistant(t);
  if (last && last.status === "streaming" && (last.turnId === "" || last.turnId === turnId)) {
    last.turnId = turnId;
    return last;
  }
  const item: Assistant = { role: "assistant", turnId, blocks: [], status: "streaming" };
  t.items.push(item);
  return item;
}

export function findCard(t: Transcript, toolUseId: string): ToolCard | undefined {
  for (let i = t.items.length - 1; i >= 0; i--) {
    const it = t.items[i];
    if (it.role !== "assistant") continue;
    for (const b of it.blocks) if (b.kind === "tool" && b.card.toolUseId === toolUseId) return b.card;
  }
  return undefined;
}

function appendText(a: Assistant, kind: "text" | "thinking", text: string): void {
  const last = a.blocks[a.blocks.length - 1];
  if (last && last.kind === kind) last.text += text;
  else a.blocks.push({ kind, text });
}

function trim(t: Transcript): void {
  if (t.items.length > MAX_ITEMS) t.items.splice(0, t.items.length - MAX_ITEMS);
}

export function addUser(t: Transcript, text: string, attachments: string[] = []): void {
  t.items.push({ role: "user", text, attachments });
  trim(t);
}

/** A turn has been sent: an empty streaming assistant item waits for events. */
export function startTurn(t: Transcript): void {
  t.items.push({ role: "assistant", turnId: "", blocks: [], status: "streaming" });
}

export function addNotice(t: Transcript, markdown: string, level: "info" | "warn" | "error" = "info", testId?: string, action?: NoticeAction): void {
  const item: TranscriptItem = { role: "notice", markdown, level };
  if (testId) item.testId = testId;
  if (action) item.action = action;
  t.items.push(item);
  trim(t);
}

export function applyEvent(t: Transcript, ev: AgentEvent): void {
  switch (ev.kind) {
    case "textDelta":
      appendText(assistantFor(t, ev.turnId), "text", ev.text);
      return;
    case "thinkingDelta":
      appendText(assistantFor(t, ev.turnId), "thinking", ev.text);
      return;
    case "toolStart": {
      const a = assistantFor(t, ev.turnId);
      a.blocks.push({
        kind: "tool",
        card: { toolUseId: ev.toolUseId, tool: ev.tool, summary: ev.summary, done: false, isError: false, resultChars: 0, marker: "" },
      });
      return;
    }
    case "toolEnd": {
      let card = findCard(t, ev.toolUseId);
      if (!card) {
        const a = assistantFor(t, ev.turnId);
        card = { toolUseId: ev.toolUseId, tool: ev.tool, summary: ev.summary, done: true, isError: false, resultChars: 0, marker: "" };
        a.blocks.push({ kind: "tool", card });
      }
      card.done = true;
      card.tool = ev.tool || card.tool;
      card.summary = ev.summary || card.summary;
      card.isError = ev.isError;
      card.resultChars = ev.resultChars;
      card.marker = ev.marker;
      if (ev.approval) card.approval = ev.approval;
      else delete card.approval;
      if (ev.diff) card.diff = ev.diff;
      if (ev.reason) card.reason = ev.reason;
      return;
    }
    case "layer":
      for (const id of ev.toolUseIds) {
        const card = findCard(t, id);
        if (card && ev.marker) card.marker = ev.marker;
      }
      return;
    case "usage":
      return;
    case "compactionStarted":
      appendNote(t, ev.turnId, ev.reason === "auto" ? COMPACTING_AUTO : COMPACTING, "info");
      return;
    case "compactionFinished": {
      dropCompactingNote(t); // one message per compaction: its outcome replaces "Compacting…"
      if (ev.compacted === false) {
        appendNote(t, ev.turnId, nothingCompacted(ev.tokensBefore), "info");
        return;
      }
      const divider: Divider = {
        tokensBefore: ev.tokensBefore,
        tokensAfter: ev.tokensAfter,
        reason: ev.reason,
        summary: ev.summary,
      };
      const open = openAssistant(t);
      if (open) open.blocks.push({ kind: "compaction", divider });
      else {
        t.items.push({ role: "compaction", divider });
        trim(t);
      }
      return;
    }
    case "retry":
      if (ev.discardPartial) dropStreamingReply(t);
      appendNote(t, ev.turnId, `Retrying (attempt ${ev.attempt}) in ${formatSeconds(ev.delaySeconds)}: ${ev.reason}`, "warn");
      return;
    case "toolsChanged": {
      const changed = [...ev.added.map((n) => `+${n}`), ...ev.removed.map((n) => `−${n}`)].join(" ") || "definitions";
      appendNote(t, ev.turnId, `Tools changed (${changed}): the prompt cache is written again once.`, "info");
      return;
    }
    case "checkpoint":
      assistantFor(t, ev.turnId); // links the user message to its checkpoint
      return;
    case "instructionsChanged": {
      const changed = [...ev.added.map((n) => `+${n}`), ...ev.removed.map((n) => `−${n}`), ...ev.changed.map((n) => `~${n}`)].join(" ");
      appendNote(t, ev.turnId, `Instructions changed (${changed}): the prompt cache is written again once.`, "info");
      return;
    }
    case "todos":
      return; // the checklist above the input shows the list (messages.ts `todos`)
    case "thinkingDropped":
      appendNote(t, ev.turnId, ev.text, "warn");
      return;
    case "error":
      appendNote(t, ev.turnId, ev.message, "error");
      return;
    case "subagentStarted": {
      const card = findCard(t, ev.toolUseId);
      if (card) card.subagent = startedView(ev);
      return;
    }
    case "subagentStep": {
      const view = findCard(t, ev.toolUseId)?.subagent;
      if (view) applyStep(view, ev.step);
      return;
    }
    case "subagentFinished": {
      const view = findCard(t, ev.toolUseId)?.subagent;
      if (view) finish(view, ev);
      return;
    }
  }
}

const COMPACTING = "Compacting the conversation…";
const COMPACTING_AUTO = "Compacting the conversation (context is filling up)…";

export function nothingCompacted(tokens: number): string {
  return `Nothing compacted: a summary would not be smaller (${formatTokens(tokens)} tokens, unchanged)`;
}

/** The "Compacting…" note of a compaction that just finished (in the open turn, or a notice outside one). */
function dropCompactingNote(t: Transcript): void {
  const a = openAssistant(t);
  if (a) {
    for (let i = a.blocks.length - 1; i >= 0; i--) {
      const b = a.blocks[i];
      if (b.kind === "note" && (b.text === COMPACTING || b.text === COMPACTING_AUTO)) {
        a.blocks.splice(i, 1);
        return;
      }
    }
    return;
  }
  const last = t.items[t.items.length - 1];
  if (last && last.role === "notice" && (last.markdown === COMPACTING || last.markdown === COMPACTING_AUTO)) t.items.pop();
}

/** The panel asks about a tool call now (agent/confirm with its toolUseId): its card waits. */
export function awaitApproval(t: Transcript, toolUseId: string): boolean {
  const card = findCard(t, toolUseId);
  if (!card) return false;
  card.approval = "waiting";
  return true;
}

/** The user answered in the panel: the card runs (or ends) without waiting for the server to say so. */
export function answerApproval(t: Transcript, toolUseId: string, approval: ToolApproval): void {
  const card = findCard(t, toolUseId);
  if (card && card.approval === "waiting") card.approval = approval;
}

/** The reply being streamed restarts from scratch: drop its text and thinking so far. */
function dropStreamingReply(t: Transcript): void {
  const a = openAssistant(t);
  if (!a) return;
  while (a.blocks.length) {
    const kind = a.blocks[a.blocks.length - 1].kind;
    if (kind !== "text" && kind !== "thinking") break;
    a.blocks.pop();
  }
}

function appendNote(t: Transcript, turnId: string, text: string, level: "info" | "warn" | "error"): void {
  const last = openAssistant(t);
  if (last) {
    if (!last.turnId) last.turnId = turnId;
    last.blocks.push({ kind: "note", text, level });
  } else {
    // e.g. /compact outside a turn
    addNotice(t, text, level);
  }
}

/** "Compacted: 80K → 9K tokens (context was filling up)". */
export function dividerLabel(d: Divider): string {
  const why = d.reason === "auto" ? "context was filling up" : "asked for";
  return `Compacted: ${formatTokens(d.tokensBefore)} → ${formatTokens(d.tokensAfter)} tokens (${why})`;
}

export function endTurn(
  t: Transcript,
  outcome: "done" | "cancelled" | "error",
  message?: string,
  footer?: string,
): void {
  const target = openAssistant(t);
  if (!target) {
    if (outcome !== "done") addNotice(t, message ?? outcome, outcome === "error" ? "error" : "info");
    return;
  }
  target.status = outcome;
  if (footer) target.footer = footer;
  for (const b of target.blocks) if (b.kind === "tool" && !b.card.done) b.card.done = true;
  if (outcome === "cancelled") target.blocks.push({ kind: "note", text: message ?? "Stopped.", level: "info" });
  if (outcome === "error" && message) {
    const dup = target.blocks.some((b) => b.kind === "note" && b.level === "error" && message.includes(b.text));
    if (!dup) target.blocks.push({ kind: "note", text: message, level: "error" });
  }
  trim(t);
}

/** The streaming assistant item of the current turn, skipping notices posted after it. */
function openAssistant(t: Transcript): Assistant | undefined {
  for (let i = t.items.length - 1; i >= 0; i--) {
    const it = t.items[i];
    if (it.role === "assistant") return it.status === "streaming" ? it : undefined;
    if (it.role === "user") return undefined;
  }
  return undefined;
}

export function isBusy(t: Transcript): boolean {
  return !!openAssistant(t);
}

/** The messages to the chat views that change the transcript (part of messages.ts `ToWebview`). */
export type TranscriptMessage =
  | { type: "userMessage"; text: string; attachments: string[] }
  | { type: "turnStarted" }
  | { type: "event"; event: AgentEvent }
  | { type: "turnEnded"; outcome: "done" | "cancelled" | "error"; message?: string; usageText?: string }
  | { type: "notice"; markdown: string; level?: "info" | "warn" | "error"; testId?: string; action?: NoticeAction }
  | { type: "cleared" }
  | { type: "approval"; id: string; params: ConfirmParams } // asked in the transcript, on the call's card
  | { type: "toolResult"; toolUseId: string; result?: ToolResult; error?: string };

/** Folds one message into the transcript: the extension as it posts it, each webview as it receives it. */
export function applyMessage(t: Transcript, m: TranscriptMessage): void {
  switch (m.type) {
    case "userMessage":
      addUser(t, m.text, m.attachments);
      return;
    case "turnStarted":
      startTurn(t);
      return;
    case "event":
      applyEvent(t, m.event);
      return;
    case "turnEnded":
      endTurn(t, m.outcome, m.message, m.usageText);
      return;
    case "notice":
      addNotice(t, m.markdown, m.level ?? "info", m.testId, m.action);
      return;
    case "cleared":
      t.items = [];
      return;
    case "approval":
      if (m.params.toolUseId) awaitApproval(t, m.params.toolUseId);
      return;
    case "toolResult": {
      // the server knows what was sent: the badge follows it (e.g. a stale one after a reload)
      const card = findCard(t, m.toolUseId);
      if (card && m.result && m.result.marker !== "compacted") card.marker = m.result.marker;
      return;
    }
  }
}
