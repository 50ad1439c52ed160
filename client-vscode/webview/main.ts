/** The chat webview: renders the transcript, streams events, sends prompts and commands. */
import type { CommandInfo, ContextUsage, Todo } from "../src/protocol";
import { meterText, nextRequestSentence, usableWindowSentence } from "../src/shared/format";
import type { FromWebview, ServerStatus, ToWebview } from "../src/shared/messages";
import { activeMention, applyMention } from "../src/shared/mentions";
import { SLASH_COMMANDS, parseInput, slashCompletions } from "../src/shared/slash";
import * as T from "../src/shared/transcript";
import { RESTORE_CHOICES } from "../src/shared/checkpoints";
import { el } from "./dom";
import { renderInline, renderMarkdown } from "./markdown";
import { linkifyPathLines } from "./pathLinks";
import { toolBody, toolCard, type Details } from "./toolCards";
import { collapsible, isLong } from "./collapse";
import { Follower } from "./follow";
import { ModelPicker } from "./modelPicker";
import { TodoPanel } from "./todos";

interface VsCodeApi {
  postMessage(m: unknown): void;
  getState(): unknown;
  setState(s: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

interface SavedState {
  items: T.TranscriptItem[];
  draft: string;
  model: string;
  open: string[];
  todos?: Todo[];
  todosOpen?: boolean;
}

const vscode = acquireVsCodeApi();
const post = (m: FromWebview) => vscode.postMessage(m);

// ------------------------------------------------------------------ state

const saved = (vscode.getState() as SavedState | undefined) ?? undefined;
let transcript: T.Transcript = { items: saved?.items ?? [] };
let busy = false;
let server: ServerStatus = { phase: "starting" };
let model = saved?.model ?? "";
let usage: ContextUsage | undefined;
const openDetails = new Set<string>(saved?.open ?? []);
let todos: Todo[] = saved?.todos ?? [];
let todosOpen = saved?.todosOpen ?? true;
let customCommands: CommandInfo[] = [];

// -------------------------------------------------------------------- DOM

const app = document.getElementById("app") ?? document.body.appendChild(el("div", { id: "app" }));
const header = el("header", { class: "bar" });
const modelEl = el("span", { class: "model", title: "Model" });
const ctxEl = el("span", { class: "ctx", title: "Context used" });
const picker = new ModelPicker((id) => post({ type: "setModel", model: id }));
header.append(picker.element, modelEl, ctxEl);
const serverEl = el("div", { class: "server", role: "status", "aria-live": "polite" });
const log = el("main", { class: "log", role: "log", "aria-live": "polite", "aria-label": "Conversation", tabindex: "0" });
const progressEl = el("div", { class: "progress", "aria-live": "polite" });
const suggest = el("ul", { class: "suggest", role: "listbox", id: "suggest", "aria-label": "Suggestions" });
suggest.hidden = true;
const input = el("textarea", {
  id: "input",
  rows: "3",
  "aria-label": "Message the agent",
  "aria-autocomplete": "list",
  "aria-controls": "suggest",
  placeholder: "Ask the agent… (/ for commands, @ to attach a file, Enter to send, Shift+Enter for a new line)",
});
const sendBtn = el("button", { id: "send", class: "primary", type: "button", title: "Send (Enter)" }, "Send");
const stopBtn = el("button", { id: "stop", type: "button", title: "Stop (Escape)" }, "Stop");
stopBtn.hidden = true;
const todoPanel = new TodoPanel(todosOpen, (open) => {
  todosOpen = open;
  persist();
});
const composer = el(
  "footer",
  { class: "composer" },
  suggest,
  todoPanel.element,
  input,
  el("div", { class: "actions" }, el("span", { class: "hint" }, "/help for commands"), sendBtn, stopBtn),
);
const follower = new Follower(log);
// DOM order is the Tab order (input → Send → Stop → the transcript's cards); CSS `order` puts the composer last.
app.append(header, serverEl, composer, el("div", { class: "log-area" }, log, follower.button), progressEl);
input.value = saved?.draft ?? "";

// -------------------------------------------------------------- persist

let saveQueued = false;
function persist(): void {
  if (saveQueued) return;
  saveQueued = true;
  queueMicrotask(() => {
    saveQueued = false;
    const s: SavedState = { items: transcript.items, draft: input.value, model, open: [...openDetails], todos, todosOpen };
    vscode.setState(s);
  });
}

// -------------------------------------------------------------- render

// tool card details from agent/toolResult, fetched when a card is opened (not persisted)
const toolDetails = new Map<string, Details>();

function cardKey(toolUseId: string): string {
  return `tool:${toolUseId}`;
}

function cardToggled(d: HTMLDetailsElement): void {
  const id = d.dataset.toolUseId ?? "";
  if (d.open) openDetails.add(cardKey(id));
  else openDetails.delete(cardKey(id));
  persist();
  if (!d.open || d.querySelector(":scope > .tool-body")) return; // also: set open by the renderer
  if (!toolDetails.has(id)) {
    toolDetails.set(id, "loading");
    post({ type: "toolResult", toolUseId: id });
  }
  d.append(toolBody(toolDetails.get(id)));
}

function wireCard(d: HTMLElement): void {
  d.addEventListener("toggle", () => cardToggled(d as HTMLDetailsElement));
}

function cardOf(toolUseId: string): T.ToolCard | undefined {
  for (const item of transcript.items) {
    if (item.role !== "assistant") continue;
    for (const b of item.blocks) if (b.kind === "tool" && b.card.toolUseId === toolUseId) return b.card;
  }
  return undefined;
}

function renderCard(card: T.ToolCard): HTMLElement {
  const open = openDetails.has(cardKey(card.toolUseId));
  if (open && !toolDetails.has(card.toolUseId)) {
    toolDetails.set(card.toolUseId, "loading");
    post({ type: "toolResult", toolUseId: card.toolUseId });
  }
  const d = toolCard(card, open, toolDetails.get(card.toolUseId));
  wireCard(d);
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

function detailsFor(key: string, summary: string, body: HTMLElement, cls: string): HTMLElement {
  const d = el("details", { class: cls, "data-key": key });
  if (openDetails.has(key)) d.open = true;
  d.append(el("summary", {}, summary), body);
  d.addEventListener("toggle", () => {
    if (d.open) openDetails.add(key);
    else openDetails.delete(key);
    persist();
  });
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

function renderItem(item: T.TranscriptItem, idx: number): HTMLElement {
  if (item.role === "user") {
    const body = el("div", { class: "msg user", "data-idx": String(idx) });
    body.append(el("div", { class: "who" }, "You"));
    const text = markdownBlock(item.text, "md");
    const key = `user:${idx}`;
    if (isLong(item.text)) {
      body.append(...collapsible(text, `msg-${idx}`, openDetails.has(key), (open) => {
        if (open) openDetails.add(key);
        else openDetails.delete(key);
        persist();
      }));
    } else body.append(text);
    if (item.attachments.length) {
      const chips = el("div", { class: "chips" });
      for (const a of item.attachments) chips.append(el("span", { class: "chip", title: `attached: ${a}` }, a));
      body.append(chips);
    }
    if (item.checkpoint) body.append(restoreMenu(item.checkpoint, item.text));
    return body;
  }
  if (item.role === "compaction") {
    const n = el("div", { class: "msg notice compaction", "data-idx": String(idx) });
    n.append(divider(item.divider));
    return n;
  }
  if (item.role === "notice") {
    const n = el("div", { class: `msg notice ${item.level}`, "data-idx": String(idx), role: item.level === "error" ? "alert" : "note" });
    n.append(markdownBlock(item.markdown, "md"));
    return n;
  }
  const a = el("div", { class: `msg assistant ${item.status}${item.rewound ? " rewound" : ""}`, "data-idx": String(idx), "data-turn-id": item.turnId });
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
      case "tool":
        a.append(renderCard(b.card));
        break;
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
  return a;
}

let dirtyAll = true;
const dirtyIdx = new Set<number>();
let frame = 0;

function schedule(all = false, idx?: number): void {
  if (all) dirtyAll = true;
  if (idx !== undefined) dirtyIdx.add(idx);
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    flush();
  });
}

/** Synchronous render of pending changes (used by rAF; exposed for tests). */
function flush(): void {
  if (dirtyAll) {
    log.replaceChildren(...transcript.items.map(renderItem));
    if (transcript.items.length === 0) {
      log.append(
        el(
          "div",
          { class: "empty" },
          el("p", {}, "Ask the agent about your workspace."),
          el("p", {}, "Type / for commands, @ to attach a file; Add Selection to Chat (Ctrl+Alt+A) quotes the editor selection."),
        ),
      );
    }
  } else {
    for (const i of dirtyIdx) {
      const item = transcript.items[i];
      const old = log.querySelector(`:scope > [data-idx="${i}"]`);
      if (!item) continue;
      const next = renderItem(item, i);
      if (old) old.replaceWith(next);
      else {
        log.querySelector(":scope > .empty")?.remove();
        log.append(next);
      }
    }
  }
  dirtyAll = false;
  dirtyIdx.clear();
  renderChrome();
  follower.afterRender();
  persist();
}

function renderChrome(): void {
  modelEl.textContent = model ? model : "";
  modelEl.hidden = !model || picker.ready;
  if (usage) {
    ctxEl.textContent = meterText(usage);
    ctxEl.title = [`Context: ${usableWindowSentence(usage)}`, nextRequestSentence(usage.nextRequest)].filter(Boolean).join("\n");
    ctxEl.className = `ctx level-${usage.level}`;
    ctxEl.hidden = false;
  } else ctxEl.hidden = true;
  const phaseLabel: Record<ServerStatus["phase"], string> = {
    starting: "Starting the agent server…",
    running: "",
    restarting: "The agent server is restarting…",
    stopped: "The agent server is stopped.",
    error: "The agent server is not running.",
    setup: "Setting up the agent's Python environment…",
  };
  const text = server.phase === "running" ? "" : server.message ? server.message : phaseLabel[server.phase];
  serverEl.replaceChildren();
  serverEl.className = `server phase-${server.phase}`;
  if (text) {
    serverEl.append(el("span", {}, text));
    if (server.phase === "error" || server.phase === "stopped") {
      const b = el("button", { type: "button", class: "restart" }, "Restart server");
      b.addEventListener("click", () => post({ type: "restartServer" }));
      serverEl.append(b);
    }
  }
  serverEl.hidden = !text;
  stopBtn.hidden = !busy;
  // aria-disabled, not disabled: Send stays in the Tab order (input → Send → Stop) while a turn runs
  sendBtn.setAttribute("aria-disabled", String(busy));
  app.classList.toggle("busy", busy);
  if (!busy) progressEl.textContent = "";
  todoPanel.render(todos);
}

/** A card's result changed form: fetch it again if it is open. */
function refetch(toolUseId: string): void {
  toolDetails.delete(toolUseId);
}

function lastIndex(): number {
  return transcript.items.length - 1;
}

// ---------------------------------------------------------- from the host

function onHostMessage(m: ToWebview): void {
  switch (m.type) {
    case "init":
      transcript = { items: m.items };
      busy = m.busy;
      server = m.server;
      if (m.modelLabel) model = m.modelLabel;
      schedule(true);
      return;
    case "userMessage":
      T.addUser(transcript, m.text, m.attachments);
      follower.jump(); // sending is "take me to the conversation": follow again
      schedule(false, lastIndex());
      return;
    case "turnStarted":
      busy = true;
      T.startTurn(transcript);
      schedule(false, lastIndex());
      return;
    case "event": {
      if (m.event.kind === "todos") {
        todos = m.event.todos;
        schedule();
        return;
      }
      const before = transcript.items.length;
      T.applyEvent(transcript, m.event);
      if (m.event.kind === "layer") for (const id of m.event.toolUseIds) refetch(id);
      if (m.event.kind === "layer" || transcript.items.length > before + 1) schedule(true);
      else {
        schedule(false, lastIndex());
        // the event may belong to an assistant item followed by notices
        const turnId = m.event.turnId;
        for (let i = transcript.items.length - 1; i >= 0; i--) {
          const it = transcript.items[i];
          if (it.role === "assistant" && it.turnId === turnId) {
            schedule(false, i);
            break;
          }
          if (it.role === "user") break;
        }
      }
      return;
    }
    case "turnEnded":
      busy = false;
      T.endTurn(transcript, m.outcome, m.message, m.usageText);
      schedule(true);
      return;
    case "progress":
      progressEl.textContent = m.message;
      return;
    case "notice":
      T.addNotice(transcript, m.markdown, m.level ?? "info");
      schedule(false, lastIndex());
      return;
    case "cleared":
      transcript = T.emptyTranscript();
      busy = false;
      openDetails.clear();
      schedule(true);
      return;
    case "server":
      server = m.status;
      if (server.phase !== "running" && busy && server.phase !== "restarting") busy = false;
      schedule();
      return;
    case "model":
      model = m.label;
      schedule();
      return;
    case "models":
      picker.setList(m);
      schedule();
      return;
    case "contextUsage":
      usage = m.usage;
      schedule();
      return;
    case "toolResult": {
      toolDetails.set(m.toolUseId, m.result ? { result: m.result } : { error: m.error ?? "unavailable" });
      // the server knows what was sent: the badge follows it (e.g. after a reload)
      const card = cardOf(m.toolUseId);
      if (card && m.result && m.result.marker !== "compacted") card.marker = m.result.marker;
      schedule(true);
      return;
    }
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
    case "todos":
      todos = m.todos;
      schedule();
      return;
    case "commands":
      customCommands = m.commands;
      return;
  }
}

window.addEventListener("message", (e: MessageEvent) => {
  const m = e.data as ToWebview;
  if (m && typeof m === "object" && typeof (m as { type?: unknown }).type === "string") onHostMessage(m);
});

// ----------------------------------------------------------- suggestions

type Suggestion = { label: string; detail: string; apply: () => void };
let suggestions: Suggestion[] = [];
let active = 0;
let mentionQuery: string | undefined;
// diagnostics (issue 24): each mentionQuery carries a number; its answer or its loss is logged
let mentionSeq = 0;
let mentionSent = 0; // the number of the query the list waits for (0: none)
const trace = (...a: unknown[]) => console.debug("[agentls] mention", ...a);

function renderSuggestions(): void {
  suggest.replaceChildren();
  suggest.hidden = suggestions.length === 0;
  input.setAttribute("aria-expanded", String(!suggest.hidden));
  suggestions.forEach((s, i) => {
    const li = el("li", { role: "option", id: `sugg-${i}`, "aria-selected": String(i === active), class: i === active ? "active" : "" });
    li.append(el("span", { class: "label" }, s.label), el("span", { class: "detail" }, s.detail));
    li.addEventListener("mousedown", (e) => {
      e.preventDefault();
      s.apply();
    });
    suggest.append(li);
  });
  if (!suggest.hidden) input.setAttribute("aria-activedescendant", `sugg-${active}`);
  else input.removeAttribute("aria-activedescendant");
}

function closeSuggestions(why = ""): void {
  if (why && mentionQuery !== undefined) trace(`closed (${why}) while #${mentionSent} "${mentionQuery}" was open`);
  suggestions = [];
  mentionQuery = undefined;
  renderSuggestions();
}

function showMentionResults(query: string, items: string[], seq?: number): void {
  if (query !== mentionQuery) {
    const now = mentionQuery === undefined ? "the list is closed" : `waiting for #${mentionSent} "${mentionQuery}"`;
    trace(`#${seq} "${query}" answered with ${items.length} items, ignored as stale (${now})`);
    return;
  }
  const caretInfo = activeMention(input.value, input.selectionStart ?? input.value.length);
  if (!caretInfo) {
    trace(`#${seq} "${query}" answered with ${items.length} items, ignored: no mention at the caret`);
    return closeSuggestions();
  }
  trace(`#${seq} "${query}" answered with ${items.length} items`);
  suggestions = items.map((p) => ({
    label: p.split("/").pop() ?? p,
    detail: p,
    apply: () => {
      const c = activeMention(input.value, input.selectionStart ?? input.value.length);
      if (c) {
        const r = applyMention(input.value, c.start, input.selectionStart ?? input.value.length, p);
        input.value = r.text;
        input.selectionStart = input.selectionEnd = r.caret;
      }
      closeSuggestions();
      input.focus();
      persist();
    },
  }));
  active = 0;
  renderSuggestions();
}

function updateSuggestions(): void {
  const v = input.value;
  const caret = input.selectionStart ?? v.length;
  const slash = slashCompletions(v.slice(0, caret) === v ? v : "", customCommands);
  if (slash.length && !v.includes("\n")) {
    mentionQuery = undefined;
    suggestions = slash.map((c) => ({
      label: c.usage,
      detail: c.description,
      apply: () => {
        input.value = `/${c.name}${c.name === "compact" || c.custom ? " " : ""}`;
        input.selectionStart = input.selectionEnd = input.value.length;
        closeSuggestions();
        input.focus();
      },
    }));
    active = Math.min(active, suggestions.length - 1);
    renderSuggestions();
    return;
  }
  const m = activeMention(v, caret);
  if (m) {
    mentionQuery = m.query;
    mentionSent = ++mentionSeq;
    trace(`#${mentionSent} "${m.query}" sent`);
    post({ type: "mentionQuery", query: m.query, seq: mentionSent });
    return;
  }
  closeSuggestions();
}

// ---------------------------------------------------------------- input

function submit(): void {
  const parsed = parseInput(input.value, customCommands);
  switch (parsed.type) {
    case "empty":
      return;
    case "unknown":
      T.addNotice(
        transcript,
        `Unknown command \`/${parsed.name}\`. Commands: ${[...SLASH_COMMANDS.map((c) => c.name), ...customCommands.map((c) => c.name)].map((n) => `\`/${n}\``).join(", ")}. Start with \`//\` to send a literal slash.`,
        "warn",
      );
      schedule(false, lastIndex());
      return;
    case "command":
      post({ type: "command", name: parsed.name, args: parsed.args });
      break;
    case "custom":
      if (busy) return;
      post({ type: "customCommand", name: parsed.name, args: parsed.args });
      break;
    case "prompt":
      if (busy) return;
      post({ type: "send", text: parsed.text });
      break;
  }
  input.value = "";
  closeSuggestions();
  persist();
}

input.addEventListener("keydown", (e) => {
  if (!suggest.hidden && suggestions.length) {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      active = (active + (e.key === "ArrowDown" ? 1 : suggestions.length - 1)) % suggestions.length;
      renderSuggestions();
      return;
    }
    if ((e.key === "Enter" && !e.shiftKey) || e.key === "Tab") {
      const s = suggestions[active];
      // a complete slash command followed by Enter is sent, not completed again
      const exact = parseInput(input.value, customCommands);
      const complete = (exact.type === "command" || exact.type === "custom") && `/${exact.name}` === input.value.trim();
      if (!(e.key === "Enter" && complete)) {
        e.preventDefault();
        s.apply();
        return;
      }
    }
    if (e.key === "Escape") {
      e.preventDefault();
      closeSuggestions();
      return;
    }
  }
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    submit();
    return;
  }
  if (e.key === "Escape" && busy) {
    e.preventDefault();
    post({ type: "stop" });
  }
});
input.addEventListener("input", () => {
  updateSuggestions();
  persist();
});
// Leaving the input closes its list, a moment later (a click elsewhere). Focus that comes back first
// cancels that: after Stop the input can be focused again and `@hel` typed within those 150 ms, and the
// late close dropped the query just sent, so its answer was ignored as stale (issue 24).
let blurClose: ReturnType<typeof setTimeout> | undefined;
input.addEventListener("blur", () => {
  clearTimeout(blurClose);
  blurClose = setTimeout(() => {
    blurClose = undefined;
    if (document.activeElement !== input) closeSuggestions("blur");
  }, 150);
});
input.addEventListener("focus", () => {
  const closing = blurClose !== undefined;
  clearTimeout(blurClose);
  blurClose = undefined;
  // back after the list was closed: the mention at the caret (if any) is asked again
  if (!closing && mentionQuery === undefined && !suggestions.length) updateSuggestions();
});
sendBtn.addEventListener("click", () => submit());
stopBtn.addEventListener("click", () => post({ type: "stop" }));

log.addEventListener("click", (e) => {
  const t = e.target as HTMLElement;
  const copy = t.closest("button.copy");
  if (copy) {
    const code = copy.parentElement?.querySelector("pre")?.textContent ?? "";
    post({ type: "copy", text: code });
    copy.textContent = "Copied";
    setTimeout(() => (copy.textContent = "Copy"), 1500);
    return;
  }
  const original = t.closest("a.open-original") as HTMLElement | null;
  if (original) {
    e.preventDefault();
    post({ type: "openOriginal", toolUseId: original.dataset.toolUseId ?? "" });
    return;
  }
  const pathLink = t.closest("a.path-link") as HTMLElement | null;
  if (pathLink) {
    e.preventDefault();
    post({ type: "openFile", path: pathLink.dataset.path ?? "", line: Number(pathLink.dataset.line) || undefined });
    return;
  }
  const a = t.closest("a");
  if (a) {
    const href = a.getAttribute("href") ?? "";
    if (!/^[a-z][a-z0-9+.-]*:/i.test(href) && !href.startsWith("#")) {
      e.preventDefault();
      post({ type: "openFile", path: href });
    }
  }
});
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && busy && document.activeElement !== input) post({ type: "stop" });
});

// ----------------------------------------------------------------- start

flush();
post({ type: "ready" });

// test hook: synchronous render
(window as unknown as { __agentlsFlush?: () => void }).__agentlsFlush = () => {
  if (frame) cancelAnimationFrame(frame);
  frame = 0;
  flush();
};
