/** Apply a unified diff to a text (for the approval diff view). Pure. */

interface Hunk {
  oldStart: number;
  lines: string[]; // with their ' ', '-', '+' prefix
}

function parseHunks(diff: string): Hunk[] | undefined {
  const hunks: Hunk[] = [];
  let cur: Hunk | undefined;
  for (const line of diff.split(/\r?\n/)) {
    const h = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (h) {
      cur = { oldStart: parseInt(h[1], 10), lines: [] };
      hunks.push(cur);
      continue;
    }
    if (!cur) continue; // headers (---, +++, diff --git …)
    if (line.startsWith("\\")) continue; // "\ No newline at end of file"
    if (line === "" ) {
      cur.lines.push(" ");
      continue;
    }
    const c = line[0];
    if (c === " " || c === "-" || c === "+") cur.lines.push(line);
    else cur = undefined;
  }
  return hunks.length ? hunks : undefined;
}

/**
 * Returns the patched text, or undefined when the diff does not apply.
 * Context lines must match; a hunk may be found up to 50 lines away from its
 * stated position.
 */
export function applyUnifiedDiff(original: string, diff: string): string | undefined {
  const hunks = parseHunks(diff);
  if (!hunks) return undefined;
  const eol = original.includes("\r\n") ? "\r\n" : "\n";
  const src = original.split(/\r?\n/);
  const out: string[] = [];
  let pos = 0;
  for (const h of hunks) {
    // trailing empty context lines produced by a final "\n" are not significant
    while (h.lines.length && h.lines[h.lines.length - 1] === " ") h.lines.pop();
    const oldLines = h.lines.filter((l) => l[0] !== "+").map((l) => l.slice(1));
    const want = Math.max(0, h.oldStart - 1);
    let at = -1;
    for (let d = 0; d <= 50 && at < 0; d++) {
      for (const cand of d === 0 ? [want] : [want - d, want + d]) {
        if (cand < pos || cand + oldLines.length > src.length) continue;
        if (oldLines.every((l, i) => src[cand + i] === l)) {
          at = cand;
          break;
        }
      }
    }
    if (at < 0) return undefined;
    out.push(...src.slice(pos, at));
    for (const l of h.lines) if (l[0] !== "-") out.push(l.slice(1));
    pos = at + oldLines.length;
  }
  out.push(...src.slice(pos));
  return out.join(eol);
}
