/**
 * The model picker in the chat header: a native <select> (keyboard and screen-reader
 * friendly) of the endpoint's models (agent/models: its Models API list) with window,
 * output limit and price, the configured id if it is a custom one, and "Other model id…"
 * for any endpoint's model. When the endpoint lists no models the server sends its offline
 * table: the group says so. It shows the model that actually answers: in demo mode the demo
 * model, with the choice kept for when a key is set.
 */
import type { ModelInfo } from "../src/protocol";
import { meterTokens } from "../src/shared/format";
import { el } from "./dom";

export interface ModelList {
  models: ModelInfo[];
  source: "endpoint" | "fallback";
  note: string;
  current: string;
  configured: string;
  demo: boolean;
}

const OTHER = "\u0000other";
const DEMO = "\u0000demo";

function price(n: number): string {
  return `$${Number.isInteger(n) ? n : n.toFixed(2)}`;
}

/** "Acme Sonnet 9 · 750K window · 64K out · $3/$15 per MTok" (or "price unknown"). */
export function modelOptionLabel(m: ModelInfo): string {
  const parts = [m.label];
  if (m.contextWindow) parts.push(`${meterTokens(m.contextWindow)} window`);
  if (m.maxOutput) parts.push(`${meterTokens(m.maxOutput)} out`);
  const known = m.inputPerMTok !== null && m.outputPerMTok !== null;
  parts.push(known ? `${price(m.inputPerMTok!)}/${price(m.outputPerMTok!)} per MTok` : "price unknown");
  if (m.lifecycle === "deprecated") parts.push("deprecated");
  return parts.join(" · ");
}

/**
 * The group heading: whose list this is, and why the offline one (the server's note: "… could not be reached …",
 * "… did not list its models within …", "… lists no models …"; model/models_api.py).
 */
export function modelGroupLabel(list: Pick<ModelList, "source" | "note">): string {
  if (list.source === "endpoint") return "Models offered by the endpoint";
  if (/could not be reached|did not list its models/.test(list.note)) return "Offline list (the endpoint could not be reached)";
  if (/listing its models failed/.test(list.note)) return "Offline list (the endpoint's list failed)";
  return "Offline list (the endpoint lists no models)";
}

/** An id the picker shows beside the list: one the endpoint's own list lacks is said to be unknown to it. */
export function unlistedLabel(id: string, list: Pick<ModelList, "source">): string {
  return list.source === "endpoint" ? `${id} (not in the endpoint's list)` : id;
}

export class ModelPicker {
  readonly element: HTMLElement;
  private readonly select = el("select", { class: "model-select", "aria-label": "Model" });
  private readonly custom = el("input", { class: "model-custom", type: "text", "aria-label": "Model id", placeholder: "model id, Enter to use" });
  private list: ModelList | undefined;

  constructor(private readonly choose: (model: string) => void) {
    this.custom.hidden = true;
    this.element = el("span", { class: "model-picker" }, this.select, this.custom);
    this.select.addEventListener("change", () => this.changed());
    this.custom.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        e.preventDefault();
        const id = this.custom.value.trim();
        if (id) this.choose(id);
        this.closeCustom();
      } else if (e.key === "Escape") {
        e.preventDefault();
        this.closeCustom();
      }
    });
    this.render();
  }

  /** The server's list (agent/models). */
  setList(list: ModelList): void {
    this.list = list;
    this.render();
  }

  /** Shown once the server sent its list; until then the header shows the plain model name. */
  get ready(): boolean {
    return this.list !== undefined;
  }

  private changed(): void {
    const v = this.select.value;
    if (v === OTHER) {
      this.custom.hidden = false;
      this.custom.value = this.list?.configured ?? "";
      this.custom.focus();
      this.custom.select();
      return;
    }
    if (v !== DEMO && v) this.choose(v);
  }

  private closeCustom(): void {
    this.custom.hidden = true;
    this.render();
    this.select.focus();
  }

  private render(): void {
    const list = this.list;
    this.element.hidden = !list;
    if (!list) return;
    const head: HTMLOptionElement[] = [];
    if (list.demo) head.push(el("option", { value: DEMO }, list.current));
    const listed: HTMLOptionElement[] = [];
    for (const m of list.models) {
      const o = el("option", { value: m.id }, modelOptionLabel(m));
      o.title = m.id;
      listed.push(o);
    }
    const group = el("optgroup", { label: modelGroupLabel(list) }, ...listed);
    // a custom id (another endpoint), and the answering model if it differs from the setting
    const extra: HTMLOptionElement[] = [];
    for (const id of [list.configured, list.demo ? "" : list.current]) {
      if (id && ![...listed, ...extra].some((o) => o.value === id)) extra.push(el("option", { value: id, class: "unlisted" }, unlistedLabel(id, list)));
    }
    extra.push(el("option", { value: OTHER }, "Other model id…"));
    this.select.replaceChildren(...head, group, ...extra);
    this.select.value = list.demo ? DEMO : list.current;
    const note = list.source === "fallback" && list.note ? `\n${list.note}` : "";
    const unknown = list.source === "endpoint" && list.configured && !list.models.some((m) => m.id === list.configured)
      ? `\nThe configured model ${list.configured} is not in the endpoint's list: requests may be refused.` : "";
    this.select.title = list.demo
      ? `The offline demo model answers (no API key).${list.configured ? ` Your choice (${list.configured}) is used once a key or base URL is set.` : ""}`
      : `Model: ${list.current}${note}${unknown}`;
  }
}
