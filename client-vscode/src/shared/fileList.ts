/**
 * The workspace's file paths for @-mention completion, cached briefly.
 *
 * An empty answer is never cached: on a fresh window the first search can run
 * before the workspace's file search is ready and find nothing, and caching
 * that made every completion in the next 15 s come back empty (issue 9, point 7).
 *
 * Nor is it answered at once: the keystrokes of `@hel` typed while one search
 * runs all wait for that search, so if it finds nothing (or fails) no later
 * keystroke asks again and the list never opens. An empty or failed search is
 * repeated a few times, with growing pauses, before the empty list is the
 * answer; every query that arrives meanwhile waits for the same result (issue 24).
 */
export interface FileListOptions {
  /** How long a non-empty list is reused. */
  ttlMs?: number;
  now?: () => number;
  /** Pauses before searching again after an empty or failed search; their number is the number of retries. */
  retryDelaysMs?: readonly number[];
  sleep?: (ms: number) => Promise<void>;
  /** Called before each retry: why (a failed search's error, else it found nothing) and after which pause. */
  onRetry?: (retry: { attempt: number; delayMs: number; error?: unknown }) => void;
}

const RETRY_DELAYS_MS = [250, 500, 1000, 2000, 4000]; // about 8 s in all

export class FileList {
  private cache: { at: number; paths: string[] } | undefined;
  private pending: Promise<string[]> | undefined;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly retryDelaysMs: readonly number[];
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    private readonly search: () => Promise<string[]>,
    private readonly options: FileListOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 15_000;
    this.now = options.now ?? Date.now;
    this.retryDelaysMs = options.retryDelaysMs ?? RETRY_DELAYS_MS;
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  /** The sorted paths; never rejects (a search that keeps failing answers an empty list). */
  async paths(): Promise<string[]> {
    if (this.cache && this.now() - this.cache.at <= this.ttlMs) return this.cache.paths;
    this.pending ??= this.searchUntilFound().finally(() => (this.pending = undefined));
    const at = this.now();
    const paths = [...(await this.pending)].sort();
    this.cache = paths.length ? { at, paths } : undefined;
    return paths;
  }

  invalidate(): void {
    this.cache = undefined;
  }

  private async searchUntilFound(): Promise<string[]> {
    for (let attempt = 0; ; attempt++) {
      let error: unknown;
      try {
        const paths = await this.search();
        if (paths.length) return paths;
      } catch (e) {
        error = e;
      }
      if (attempt >= this.retryDelaysMs.length) return [];
      const delayMs = this.retryDelaysMs[attempt];
      this.options.onRetry?.({ attempt: attempt + 1, delayMs, error });
      await this.sleep(delayMs);
    }
  }
}
