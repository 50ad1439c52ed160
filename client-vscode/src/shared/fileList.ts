/**
 * The workspace's file paths for @-mention completion, cached briefly.
 *
 * An empty answer is never cached: on a fresh window the first search can run
 * before the workspace's file search is ready and find nothing, and caching
 * that made every completion in the next 15 s come back empty (issue 9, point 7).
 */
export class FileList {
  private cache: { at: number; paths: string[] } | undefined;
  private pending: Promise<string[]> | undefined;

  constructor(
    private readonly search: () => Promise<string[]>,
    private readonly ttlMs = 15_000,
    private readonly now: () => number = Date.now,
  ) {}

  async paths(): Promise<string[]> {
    if (this.cache && this.now() - this.cache.at <= this.ttlMs) return this.cache.paths;
    this.pending ??= this.search().finally(() => (this.pending = undefined));
    const at = this.now();
    const paths = [...(await this.pending)].sort();
    this.cache = paths.length ? { at, paths } : undefined;
    return paths;
  }

  invalidate(): void {
    this.cache = undefined;
  }
}
