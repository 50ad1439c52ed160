/**
 * The model picker in the chat header: a native <select> (keyboard and screen-reader
 * friendly) of the known models with window and price, the configured id if it is a
 * custom one, and "Other model id…" for any endpoint's model. It shows the model that
 * actually answers: in demo mode the demo model, with the choice kept for when a key is set.
 */
import type { ModelInfo } from "../src/protocol";
import { meterTokens } from "../src/shared/format";
import { el } from "./dom";

export interface ModelList {
  models: ModelInfo[];
  current: string;
  configured: string;
  demo: boolean;
}

const OTHER = "\u0000other";
const DEMO = "\u0000demo";

function price(n: number): string {
  return `$${Number.isInteger(n) ? n : n.toFixed(2)}`;
}

export function modelOptionLabel(m: ModelInfo): string {
  return `${m.label} · ${meterTokens(m.contextWindow)} · ${price(m.inputPerMTok)}/${price(m.outputPerMTok)} per MTok`;
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
    const options: HTMLOptionElement[] = [];
    if (list.demo) options.push(el("option", { value: DEMO }, list.current));
    for (const m of list.models) {
      const o = el("option", { value: m.id }, modelOptionLabel(m));
      o.title = m.id;
      options.push(o);
    }
    // a custom id (another endpoint), and the answering model if it differs from the setting
    for (const id of [list.configured, list.demo ? "" : list.current]) {
      if (id && !options.some((o) => o.value === id)) options.push(el("option", { value: id }, id));
    }
    options.push(el("option", { value: OTHER }, "Other model id…"));
    this.select.replaceChildren(...options);
    this.select.value = list.demo ? DEMO : list.current;
    this.select.title = list.demo
      ? `The offline demo model answers (no API key). Your choice (${list.configured}) is used once a key or base URL is set.`
      : `Model: ${list.current}`;
  }
}
