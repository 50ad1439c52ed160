/** @-mention parsing: `@src/app.py` in a prompt names a workspace file. */

export interface Mention {
  path: string;
  start: number; // index of '@'
  end: number; // index after the path
}

const MENTION_RE = /(^|[\s(["'`])@([^\s@()[\]"'`,;]+)/g;

/** All `@path` tokens; trailing sentence punctuation is not part of the path. */
export function findMentions(text: string): Mention[] {
  const out: Mention[] = [];
  MENTION_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = MENTION_RE.exec(text))) {
    let path = m[2].replace(/[.:!?]+$/, "");
    if (!path) continue;
    // e-mail like `a@b.c` is excluded by the required preceding boundary.
    const start = m.index + m[1].length;
    out.push({ path, start, end: start + 1 + path.length });
  }
  return out;
}

/** Unique mentioned paths, in order of first appearance. */
export function mentionedPaths(text: string): string[] {
  const seen = new Set<string>();
  for (const m of findMentions(text)) seen.add(m.path);
  return [...seen];
}

/**
 * The mention being typed at the caret, if any: `look at @src/ma|` → {query: "src/ma", start}.
 */
export function activeMention(text: string, caret: number): { query: string; start: number } | undefined {
  const before = text.slice(0, caret);
  const m = /(^|[\s(["'`])@([^\s@()[\]"'`,;]*)$/.exec(before);
  if (!m) return undefined;
  return { query: m[2], start: before.length - m[2].length - 1 };
}

/** Replace the active mention (starting at `start`, up to the caret) by `@path `. */
export function applyMention(
  text: string,
  start: number,
  caret: number,
  path: string,
): { text: string; caret: number } {
  const insert = `@${path} `;
  const next = text.slice(0, start) + insert + text.slice(caret).replace(/^\S*\s?/, "");
  return { text: next, caret: start + insert.length };
}

/** Simple fuzzy score for ranking file candidates (higher is better, -1 = no match). */
export function scorePath(path: string, query: string): number {
  if (!query) return 1;
  const p = path.toLowerCase();
  const q = query.toLowerCase();
  const base = p.slice(p.lastIndexOf("/") + 1);
  if (base === q) return 1000;
  // typed in the file's own case (`@READ` → README.md before read.py): a small bonus
  if (base.startsWith(q)) return 800 - base.length + (path.slice(path.lastIndexOf("/") + 1).startsWith(query) ? 50 : 0);
  if (p.includes(q)) return 500 - p.length;
  // subsequence match
  let i = 0;
  for (const ch of p) if (ch === q[i]) i++;
  return i === q.length ? 100 - p.length / 100 : -1;
}

/** Equal scores: the shallower path first (`@READ` → the root README.md, not client-vscode/README.md). */
function depth(path: string): number {
  return path.split("/").length;
}

export function rankPaths(paths: string[], query: string, limit = 20): string[] {
  return paths
    .map((p) => ({ p, s: scorePath(p, query) }))
    .filter((x) => x.s >= 0)
    .sort((a, b) => b.s - a.s || depth(a.p) - depth(b.p) || a.p.localeCompare(b.p))
    .slice(0, limit)
    .map((x) => x.p);
}
