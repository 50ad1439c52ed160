/**
 * Stick to the bottom while the transcript grows, unless the user scrolled up to read:
 * then a "Jump to latest" button appears instead of yanking them down.
 * Following is decided when the view scrolls, not re-measured at each render, so a burst
 * of streamed text between two frames cannot make the view lose the bottom.
 */
import { el } from "./dom";

const NEAR_BOTTOM_PX = 24;

export class Follower {
  readonly button: HTMLButtonElement;
  private following = true;

  constructor(private readonly log: HTMLElement) {
    this.button = el("button", { type: "button", class: "jump-latest", title: "Jump to the latest message" }, "↓ Jump to latest");
    this.button.hidden = true;
    this.button.addEventListener("click", () => this.jump());
    log.addEventListener("scroll", () => this.scrolled(), { passive: true });
    // A narrower panel re-wraps the text: keep the bottom in view.
    new ResizeObserver(() => this.afterRender()).observe(log);
  }

  get isFollowing(): boolean {
    return this.following;
  }

  /** After the transcript changed: stay at the bottom, or offer the jump. */
  afterRender(): void {
    if (this.following) this.toBottom();
    else this.button.hidden = this.atBottom();
  }

  jump(): void {
    this.following = true;
    this.toBottom();
    this.button.hidden = true;
  }

  private atBottom(): boolean {
    return this.log.scrollHeight - this.log.scrollTop - this.log.clientHeight <= NEAR_BOTTOM_PX;
  }

  private toBottom(): void {
    this.log.scrollTop = this.log.scrollHeight;
  }

  /** Our own scroll to the bottom lands at the bottom, so only the user's scrolling up stops following. */
  private scrolled(): void {
    this.following = this.atBottom();
    this.button.hidden = this.following;
  }
}
