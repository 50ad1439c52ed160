/**
 * Keyboard in the transcript: one Tab stop per message, arrow keys within it.
 *
 * A long answer holds dozens of Copy buttons, path links and cards; visiting each with Tab made the
 * input unreachable. So every message is one stop (tabindex 0) and what it contains is reached with
 * the arrow keys (Down/Right: next, Up/Left: previous, Home/End), Escape going back to the message.
 * An approval card is the exception: its buttons and reason field stay in the Tab order.
 */

const FOCUSABLE = "a[href], button, summary, input, select, textarea, [tabindex]";

function shown(e: HTMLElement): boolean {
  return !e.closest("[hidden]") && e.getClientRects().length > 0;
}

/** What the arrow keys visit inside a message, in document order. */
export function innerItems(msg: HTMLElement): HTMLElement[] {
  return [...msg.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((e) => e !== msg && !e.closest(".approval"));
}

/** A freshly rendered message: itself a Tab stop, its contents reached by arrows. */
export function oneTabStop(msg: HTMLElement): HTMLElement {
  msg.tabIndex = 0;
  for (const inner of innerItems(msg)) inner.tabIndex = -1;
  return msg;
}

/** The log's keydown: arrow keys move within the focused message. */
export function arrowsWithin(e: KeyboardEvent, log: HTMLElement): void {
  const target = e.target as HTMLElement;
  if (target.closest(".approval") || target.matches("input, textarea, select")) return;
  const msg = target.closest<HTMLElement>(".msg");
  if (!msg || !log.contains(msg)) return;
  const items = innerItems(msg).filter(shown);
  const at = items.indexOf(target);
  let next: HTMLElement | undefined;
  switch (e.key) {
    case "ArrowDown":
    case "ArrowRight":
      next = at < 0 ? items[0] : items[(at + 1) % items.length];
      break;
    case "ArrowUp":
    case "ArrowLeft":
      next = at < 0 ? items[items.length - 1] : items[(at - 1 + items.length) % items.length];
      break;
    case "Home":
      next = items[0];
      break;
    case "End":
      next = items[items.length - 1];
      break;
    case "Escape":
      if (at >= 0) next = msg;
      break;
    default:
      return;
  }
  if (!next) return;
  e.preventDefault();
  if (e.key === "Escape") e.stopPropagation(); // leaving a message is not Stop
  next.focus();
  next.scrollIntoView({ block: "nearest" });
}
