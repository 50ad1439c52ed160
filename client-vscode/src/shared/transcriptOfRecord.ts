/**
 * The server's transcript of record (agent/resume, agent/rewind, agent/fork) as the panel shows it:
 * the same items the live reducer (transcript.ts) builds from events, so a reloaded, resumed or
 * rewound panel looks as it did live. Pure.
 */
import type { TranscriptEntry, TranscriptTool } from "../protocol";
import { viewOfMark } from "./subagents";
import { MAX_ITEMS, type Block, type Divider, type ToolCard, type Transcript, type TranscriptItem } from "./transcript";

type Assistant = Extract<TranscriptItem, { role: "assistant" }>;

/** A card of the transcript of record as the panel shows it. */
export function cardOf(t: TranscriptTool): ToolCard {
  const card: ToolCard = {
    toolUseId: t.id,
    tool: t.name,
    summary: t.summary,
    done: true,
    isError: t.isError || t.done === false,
    resultChars: t.resultChars,
    marker: t.marker ?? "",
  };
  if (t.approval) card.approval = t.approval;
  if (t.diff) card.diff = t.diff;
  if (t.reason) card.reason = t.reason;
  if (t.done === false) card.stopped = true;
  if (t.subagent) card.subagent = viewOfMark(t.subagent);
  return card;
}

function dividerOf(e: TranscriptEntry): Divider {
  const c = e.compaction ?? { tokensBefore: 0, tokensAfter: 0, reason: "auto" as const, summary: "" };
  return { tokensBefore: c.tokensBefore, tokensAfter: c.tokensAfter, reason: c.reason, summary: c.summary };
}

/**
 * A resumed session's transcript of record (agent/resume) as the panel showed it live: the replies,
 * notes and automatic compactions of one turn are one assistant item, in the order they happened.
 */
export function fromSession(entries: TranscriptEntry[]): Transcript {
  const items: TranscriptItem[] = [];
  let checkpoint: string | undefined;
  let open: Assistant | undefined; // the assistant item of the turn being read
  entries.forEach((e, i) => {
    if (e.role === "user") {
      checkpoint = e.checkpoint;
      const item: TranscriptItem = { role: "user", text: e.text, attachments: e.attachments ?? [] };
      if (e.checkpoint) item.checkpoint = e.checkpoint;
      items.push(item);
      open = undefined;
      return;
    }
    const turnId = e.turnId ?? "";
    const inTurn = open !== undefined && turnId !== "" && open.turnId === turnId;
    if (e.kind === "compaction" || e.kind === "note") {
      const block: Block = e.kind === "compaction" ? { kind: "compaction", divider: dividerOf(e) } : { kind: "note", text: e.text, level: e.level ?? "info" };
      if (inTurn) open!.blocks.push(block);
      else if (block.kind === "compaction") items.push({ role: "compaction", divider: block.divider });
      else items.push({ role: "notice", markdown: block.text, level: block.level });
      return;
    }
    if (!inTurn) {
      // a turn's checkpoint has the turn's id: the reply keeps it, so a restore can grey its cards
      open = { role: "assistant", turnId: turnId || checkpoint || `resumed-${i}`, blocks: [], status: "done" };
      items.push(open);
    }
    if (e.text) open!.blocks.push({ kind: "text", text: e.text });
    for (const t of e.tools) open!.blocks.push({ kind: "tool", card: cardOf(t) });
  });
  for (const it of items) if (it.role === "assistant" && it.blocks.some((b) => b.kind === "note" && b.text === "Stopped.")) it.status = "cancelled";
  return { items: items.slice(-MAX_ITEMS) };
}
