/**
 * The list under the input: slash commands as they are typed, and workspace files for an `@`
 * mention (asked of the extension, numbered, so a late answer is recognised as stale).
 */
import { activeMention, applyMention } from "../src/shared/mentions";
import { slashCompletions } from "../src/shared/slash";
import { el } from "./dom";
import { persist, post } from "./host";
import { input, suggest } from "./layout";
import { state } from "./state";

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

/** The list is open and has rows. */
export function suggesting(): boolean {
  return !suggest.hidden && suggestions.length > 0;
}

/** Arrow keys: the next (or previous) row is the active one. */
export function moveActive(down: boolean): void {
  active = (active + (down ? 1 : suggestions.length - 1)) % suggestions.length;
  renderSuggestions();
}

export function applyActive(): void {
  suggestions[active].apply();
}

/** Nothing waits for an answer and nothing is listed. */
export function idle(): boolean {
  return mentionQuery === undefined && !suggestions.length;
}

export function closeSuggestions(why = ""): void {
  if (why && mentionQuery !== undefined) trace(`closed (${why}) while #${mentionSent} "${mentionQuery}" was open`);
  suggestions = [];
  mentionQuery = undefined;
  renderSuggestions();
}

export function showMentionResults(query: string, items: string[], seq?: number): void {
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

/** The input changed (or came back into focus): slash completions, a mention's query, or nothing. */
export function updateSuggestions(): void {
  const v = input.value;
  const caret = input.selectionStart ?? v.length;
  const slash = slashCompletions(v.slice(0, caret) === v ? v : "", state.customCommands);
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
