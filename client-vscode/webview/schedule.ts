/** Rendering is batched per animation frame: what changed is marked here, the view renders it once. */
let dirtyAll = true;
const dirtyIdx = new Set<number>();
let frame = 0;
let render: (all: boolean, idx: Set<number>) => void = () => undefined;

/** The renderer: everything (`all`) or the items at those indexes. */
export function renderWith(fn: (all: boolean, idx: Set<number>) => void): void {
  render = fn;
}

/** Marks the whole log (`all`) or one item for the next frame; with neither, the chrome only. */
export function schedule(all = false, idx?: number): void {
  if (all) dirtyAll = true;
  if (idx !== undefined) dirtyIdx.add(idx);
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    flush();
  });
}

/** Synchronous render of pending changes (used by rAF; exposed for tests). */
export function flush(): void {
  if (frame) cancelAnimationFrame(frame);
  frame = 0;
  const all = dirtyAll;
  dirtyAll = false;
  const idx = new Set(dirtyIdx);
  dirtyIdx.clear();
  render(all, idx);
}
