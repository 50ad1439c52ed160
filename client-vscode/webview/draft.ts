/**
 * The composer's draft across a reload. VS Code keeps the view's state (host.ts), but after a window
 * reload it can hand back an older copy than the last one the view saved: the e2e saw a prompt sent
 * minutes before come back as the draft, ready to be sent twice. Sending always empties the input,
 * so a draft saved before a prompt that the conversation now shows after it was sent (or replaced)
 * since: it is dropped. To know, the draft is saved with the conversation's prompts as they were
 * (their number and a fingerprint of the last one: the state holds no transcript), held back until the conversation's record arrives (the
 * first `init` that is not loading), and then put before anything typed meanwhile.
 */
import * as T from "../src/shared/transcript";
import { saved, type PromptMark } from "./host";

let held: string | undefined = saved?.draft || undefined;
const heldMark = saved?.draftAfter;

function prompts(t: T.Transcript): string[] {
  return t.items.flatMap((it) => (it.role === "user" ? [fingerprint(it.text)] : []));
}

/** FNV-1a over the text's UTF-16 units: tells one prompt from another, and keeps none of it. */
function fingerprint(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return `${text.length}:${(h >>> 0).toString(16)}`;
}

/** The conversation's prompts as a draft saved now sees them. */
export function promptMark(t: T.Transcript): PromptMark {
  const all = prompts(t);
  return { prompts: all.length, last: all[all.length - 1] ?? "" };
}

/** What to save: the held draft first, and the mark it was saved with while it is held. */
export function draftToSave(typed: string, t: T.Transcript): { draft: string; draftAfter: PromptMark } {
  return held === undefined ? { draft: typed, draftAfter: promptMark(t) } : { draft: held + typed, draftAfter: heldMark ?? promptMark(t) };
}

/** Whether `t` shows a prompt sent after a draft saved at `mark` (the same conversation: its last prompt then is there). */
export function sentSince(mark: PromptMark | undefined, t: T.Transcript): boolean {
  if (!mark || mark.prompts === 0) return false; // an empty chat's draft: nothing tells which conversation it was
  const all = prompts(t);
  return all.length > mark.prompts && all[mark.prompts - 1] === mark.last;
}

/** The record is shown: the input's new value (the held draft before what was typed), or undefined when it stays. */
export function settleDraft(t: T.Transcript, typed: string): string | undefined {
  if (held === undefined) return undefined;
  const draft = held;
  held = undefined;
  return sentSince(heldMark, t) ? undefined : draft + typed;
}
