/** Long user messages (pasted logs, files) are shown collapsed, with "Show more". */
import { el } from "./dom";

export const COLLAPSE_CHARS = 800;
export const COLLAPSE_LINES = 12;

export function isLong(text: string): boolean {
  return text.length > COLLAPSE_CHARS || text.split("\n").length > COLLAPSE_LINES;
}

/**
 * Wraps a rendered message body; `expanded` and `toggled` keep the state across renders.
 * The toggle is a real button (keyboard, aria-expanded) after the body.
 */
export function collapsible(body: HTMLElement, id: string, expanded: boolean, toggled: (open: boolean) => void): HTMLElement[] {
  body.id = id;
  body.classList.add("collapsible");
  body.classList.toggle("collapsed", !expanded);
  const button = el("button", { type: "button", class: "show-more", "aria-controls": id, "aria-expanded": String(expanded) }, expanded ? "Show less" : "Show more");
  button.addEventListener("click", () => {
    const open = body.classList.toggle("collapsed") === false;
    button.textContent = open ? "Show less" : "Show more";
    button.setAttribute("aria-expanded", String(open));
    toggled(open);
  });
  return [body, button];
}
