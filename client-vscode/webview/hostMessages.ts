/**
 * What the extension says (messages.ts `ToWebview`). The transcript's messages are folded by
 * the shared reducer, exactly as the extension folded them; what is done here besides is the
 * view's own: which items to render again, the cards' fetched details, focus and scrolling.
 */
import type { ToWebview } from "../src/shared/messages";
import * as T from "../src/shared/transcript";
import { asked, clearApprovals, done } from "./approvals";
import { settleDraft } from "./draft";
import { persist } from "./host";
import { follower, input, picker, planControls, progressEl } from "./layout";
import { toolDetails } from "./render";
import { schedule } from "./schedule";
import { lastIndex, openDetails, state } from "./state";
import { showMentionResults } from "./suggestions";

/** A transcript message: folded, then the items it touched are marked for the next render. */
function onTranscript(m: T.TranscriptMessage): void {
  state.loading = false;
  const before = state.transcript.items.length;
  T.applyMessage(state.transcript, m);
  switch (m.type) {
    case "userMessage":
      follower.jump(); // sending is "take me to the conversation": follow again
      schedule(false, lastIndex());
      return;
    case "turnStarted":
      state.busy = true;
      schedule(false, lastIndex());
      return;
    case "event":
      if (m.event.kind === "todos") {
        state.todos = m.event.todos;
        schedule();
        return;
      }
      if (m.event.kind === "layer") for (const id of m.event.toolUseIds) toolDetails.delete(id); // fetched again if open
      if (m.event.kind === "layer" || state.transcript.items.length > before + 1) schedule(true);
      else scheduleTurn(m.event.turnId);
      return;
    case "turnEnded":
      state.busy = false;
      schedule(true);
      return;
    case "notice":
      schedule(false, lastIndex());
      return;
    case "cleared":
      toolDetails.clear();
      state.busy = false;
      openDetails.clear();
      schedule(true);
      return;
    case "approval":
      asked(m.id, m.params);
      schedule(true);
      return;
    case "toolResult":
      toolDetails.set(m.toolUseId, m.result ? { result: m.result } : { error: m.error ?? "unavailable" });
      schedule(true);
      return;
  }
}

/** The last item, and the event's turn's reply (it may be followed by notices). */
function scheduleTurn(turnId: string): void {
  const items = state.transcript.items;
  schedule(false, lastIndex());
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i];
    if (it.role === "assistant" && it.turnId === turnId) {
      schedule(false, i);
      break;
    }
    if (it.role === "user") break;
  }
}

export function onHostMessage(m: ToWebview): void {
  switch (m.type) {
    case "userMessage":
    case "turnStarted":
    case "event":
    case "turnEnded":
    case "notice":
    case "cleared":
    case "approval":
    case "toolResult":
      onTranscript(m);
      return;
    case "init":
      state.transcript = { items: m.items };
      state.loading = !!m.loading;
      toolDetails.clear(); // another conversation (or this one again): cards fetch their own results
      clearApprovals();
      state.busy = m.busy;
      state.server = m.server;
      if (m.modelLabel) state.model = m.modelLabel;
      if (!m.loading) restoreDraft();
      schedule(true);
      return;
    case "progress":
      progressEl.textContent = m.message;
      return;
    case "server":
      state.server = m.status;
      if (m.status.phase !== "running" && state.busy && m.status.phase !== "restarting") state.busy = false;
      schedule();
      return;
    case "model":
      state.model = m.label;
      schedule();
      return;
    case "models":
      picker.setList(m);
      schedule();
      return;
    case "contextUsage":
      state.usage = m.usage;
      schedule();
      return;
    case "mentionResults":
      showMentionResults(m.query, m.items, m.seq);
      return;
    case "insertText": {
      const v = input.value;
      const sep = v && !v.endsWith("\n") ? "\n" : "";
      input.value = v + sep + m.text;
      input.selectionStart = input.selectionEnd = input.value.length;
      persist();
      return;
    }
    case "focusInput":
      input.focus();
      return;
    case "approvalDone":
      if (done(m.id)) schedule(true);
      return;
    case "todos":
      state.todos = m.todos;
      schedule();
      return;
    case "commands":
      state.customCommands = m.commands;
      return;
    case "mode":
      planControls.render(m.mode);
      return;
  }
}

/** The conversation's record is shown: the draft saved before the reload goes back, unless it was sent since. */
function restoreDraft(): void {
  const value = settleDraft(state.transcript, input.value);
  if (value !== undefined) {
    input.value = value;
    input.selectionStart = input.selectionEnd = value.length;
  }
  persist();
}
