/**
 * The live context report: re-rendered from `agent/context` after every change
 * the server announces (each `agent/contextUsage`), so Show Context never goes
 * stale, and rendered on demand when the editor restores the tab after a reload.
 * Pure: the fetch and the publisher are handed in.
 */
import type { AgentEvent, ContextResult } from "../protocol";
import { cacheContextMarkdown } from "./cacheReport";
import { contextMarkdown } from "./format";

export class LiveContext {
  private watched = false;
  private inFlight: Promise<string> | undefined;
  private again = false;

  constructor(
    private readonly fetch: () => Promise<ContextResult>,
    private readonly publish: (markdown: string) => void,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The report now (the document is being shown); from then on it follows every change. */
  async render(): Promise<string> {
    this.watched = true;
    try {
      const c = await this.fetch();
      return contextMarkdown(c, this.now()) + "\n" + cacheContextMarkdown(c.cache);
    } catch (e) {
      return `# Agent context\n\nUnavailable: ${(e as Error).message ?? e}\n\n_It refreshes by itself once the agent server answers._\n`;
    }
  }

  /** Something changed on the server: re-render if anyone is looking; one fetch at a time. */
  changed(): Promise<string> | undefined {
    if (!this.watched) return undefined;
    if (this.inFlight) {
      this.again = true;
      return this.inFlight;
    }
    this.inFlight = (async () => {
      let text: string;
      do {
        this.again = false;
        text = await this.render();
        this.publish(text);
      } while (this.again);
      this.inFlight = undefined;
      return text;
    })();
    return this.inFlight;
  }
}

/**
 * Events that change the report at once, before the reply that follows them (and its
 * `agent/contextUsage`): an instruction file or the tool list the model is told of now.
 */
export function changesContext(event: AgentEvent): boolean {
  return event.kind === "instructionsChanged" || event.kind === "toolsChanged" || event.kind === "compactionFinished";
}
