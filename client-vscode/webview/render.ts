/** One transcript item as HTML: a user message, a notice, a compaction divider or a reply with its blocks and tool cards. */
import { RESTORE_CHOICES } from "../src/shared/checkpoints";
import * as T from "../src/shared/transcript";
import { approvalFor, renderApproval } from "./approvals";
import { collapsible, isLong } from "./collapse";
import { el } from "./dom";
import { persist, post } from "./host";
import { oneTabStop } from "./keyboard";
import { renderInline, renderMarkdown } from "./markdown";
import { linkifyPathLines } from "./pathLinks";
import { openDetails, state } from "./state";
import { toolBody, toolCard, type Details } from "./toolCards";

// tool card details from agent/toolResult, fetched when a card is opened (not persisted)
export const toolDetails = new Map<string, Details>();

function cardKey(toolUseId: string): string {
  return `tool:${toolUseId}`;
}

function fetchDetails(toolUseId: string): void {
  toolDetails.set(toolUseId, "loading");
  post({ type: "toolResult", toolUseId });
}

function cardToggled(d: HTMLDetailsElement): void {
  const id = d.dataset.toolUseId ?? "";
  if (d.open) openDetails.add(cardKey(id));
  else openDetails.delete(cardKey(id));
  persist();
  if (!d.open || d.querySelector(":scope > .tool-body")) return; // also: set open by the renderer
  const card = T.findCard(state.transcript, id);
  if (!toolDetails.has(id) && card?.done) fetchDetails(id); // a running call has no result yet: fetched once done
  d.append(toolBody(toolDetails.get(id), card));
}

function renderCard(card: T.ToolCard): HTMLElement {
  const open = openDetails.has(cardKey(card.toolUseId));
  if (open && card.done && !toolDetails.has(card.toolUseId)) fetchDetails(card.toolUseId);
  const d = toolCard(card, open, toolDetails.get(card.toolUseId));
  d.addEventListener("toggle", () => cardToggled(d as HTMLDetailsElement));
  return d;
}

function divider(d: T.Divider): HTMLElement {
  const b = el("button", { type: "button", class: "divider-open", title: "Open the summary the model now sees" }, `${T.dividerLabel(d)} — open the summary`);
  b.addEventListener("click", () => post({ type: "openSummary", summary: d.summary, label: T.dividerLabel(d) }));
  return el("div", { class: "compaction-divider", role: "separator", "aria-label": T.dividerLabel(d) }, b);
}

function decorateCode(container: HTMLElement): void {
  for (const pre of Array.from(container.querySelectorAll("pre"))) {
    const btn = el("button", { type: "button", class: "copy", title: "Copy code", "aria-label": "Copy code" }, "Copy");
    const wrap = el("div", { class: "code-wrap" });
    pre.replaceWith(wrap);
    wrap.append(btn, pre);
  }
}

function markdownBlock(text: string, cls: string): HTMLElement {
  const div = el("div", { class: cls });
  div.innerHTML = renderMarkdown(text);
  decorateCode(div);
  linkifyPathLines(div);
  return div;
}

function toggled(key: string, open: boolean): void {
  if (open) openDetails.add(key);
  else openDetails.delete(key);
  persist();
}

function detailsFor(key: string, summary: string, body: HTMLElement, cls: string): HTMLElement {
  const d = el("details", { class: cls, "data-key": key });
  if (openDetails.has(key)) d.open = true;
  d.append(el("summary", {}, summary), body);
  d.addEventListener("toggle", () => toggled(key, d.open));
  return d;
}

/** "Restore ▾" on a user message: code / conversation / both (the extension previews, then asks). */
function restoreMenu(checkpoint: string, prompt: string): HTMLElement {
  const wrap = el("div", { class: "restore" });
  const toggle = el("button", { class: "restore-toggle", title: "Restore the files and/or the conversation as they were before this message", "aria-haspopup": "menu" }, "Restore ▾");
  const menu = el("div", { class: "restore-menu", role: "menu", hidden: "" });
  for (const choice of RESTORE_CHOICES) {
    const b = el("button", { role: "menuitem", title: choice.detail, "data-restore": choice.restore }, choice.label);
    b.addEventListener("click", () => {
      menu.hidden = true;
      post({ type: "restore", checkpoint, restore: choice.restore, prompt });
    });
    menu.append(b);
  }
  toggle.addEventListener("click", () => {
    menu.hidden = !menu.hidden;
  });
  wrap.append(toggle, menu);
  return wrap;
}

/** The prompt of the turn whose reply is item `idx` (undefined: no prompt before it). */
export function promptBefore(idx: number): string | undefined {
  for (let i = idx - 1; i >= 0; i--) {
    const it = state.transcript.items[i];
    if (it?.role === "user") return it.text;
  }
  return undefined;
}

export function renderItem(item: T.TranscriptItem, idx: number): HTMLElement {
  return oneTabStop(renderMessage(item, idx)); // one Tab stop per message, arrow keys within
}

function renderUser(item: Extract<T.TranscriptItem, { role: "user" }>, idx: number): HTMLElement {
  const body = el("div", { class: "msg user", "data-idx": String(idx), role: "article", "aria-label": "You" });
  body.append(el("div", { class: "who" }, "You"));
  // what the user typed or pasted, as it was: line breaks kept (a pasted log is not markdown)
  const text = el("div", { class: "md user-text" }, item.text);
  const key = `user:${idx}`;
  if (isLong(item.text)) body.append(...collapsible(text, `msg-${idx}`, openDetails.has(key), (open) => toggled(key, open)));
  else body.append(text);
  if (item.attachments.length) {
    const chips = el("div", { class: "chips" });
    for (const a of item.attachments) chips.append(el("span", { class: "chip", title: `attached: ${a}` }, a));
    body.append(chips);
  }
  if (item.checkpoint) body.append(restoreMenu(item.checkpoint, item.text));
  return body;
}

function renderMessage(item: T.TranscriptItem, idx: number): HTMLElement {
  if (item.role === "user") return renderUser(item, idx);
  if (item.role === "compaction") {
    const n = el("div", { class: "msg notice compaction", "data-idx": String(idx), role: "article", "aria-label": T.dividerLabel(item.divider) });
    n.append(divider(item.divider));
    return n;
  }
  if (item.role === "notice") {
    const n = el("div", { class: `msg notice ${item.level}`, "data-idx": String(idx), role: item.level === "error" ? "alert" : "note" });
    if (item.testId) n.dataset.testid = item.testId;
    n.append(markdownBlock(item.markdown, "md"));
    if (item.action) n.append(el("button", { class: "notice-action", type: "button", "data-idx": String(idx), title: item.action.title }, item.action.label));
    return n;
  }
  const a = el("div", { class: `msg assistant ${item.status}${item.rewound ? " rewound" : ""}`, "data-idx": String(idx), "data-turn-id": item.turnId, role: "article", "aria-label": "Agent" });
  if (item.rewound) a.title = "A restore took this turn's file changes back";
  a.append(el("div", { class: "who" }, "Agent"));
  item.blocks.forEach((b, bi) => {
    const key = `${idx}:${bi}`;
    switch (b.kind) {
      case "text":
        a.append(markdownBlock(b.text, "md"));
        break;
      case "thinking":
        a.append(detailsFor(key, "Thinking", markdownBlock(b.text, "md thinking-body"), "thinking"));
        break;
      case "tool": {
        a.append(renderCard(b.card));
        const asked = approvalFor(b.card.toolUseId);
        if (asked) a.append(renderApproval(...asked));
        break;
      }
      case "compaction":
        a.append(divider(b.divider));
        break;
      case "note": {
        const n = el("div", { class: `note ${b.level}`, role: b.level === "error" ? "alert" : "note" });
        n.innerHTML = renderInline(b.text);
        a.append(n);
        break;
      }
    }
  });
  if (item.status === "streaming" && item.blocks.length === 0) a.append(el("div", { class: "typing" }, "…"));
  if (item.footer) a.append(el("div", { class: "footer" }, item.footer));
  // a failed turn can be sent again as it was (its prompt, from the message before it)
  if (item.status === "error" && promptBefore(idx) !== undefined) {
    a.append(el("button", { class: "retry", type: "button", "data-idx": String(idx), title: "Send this prompt again" }, "Retry"));
  }
  return a;
}
