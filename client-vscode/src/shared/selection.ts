/** The lines an editor selection covers, the same in the quote, the chip and the attachment. */

export interface Pos {
  line: number;
  character: number;
}

/**
 * A selection of whole lines ends at column 0 of the next line (VS Code's triple-click or
 * Shift+Down): that line is not selected. Returns the span ending at the end of the previous line.
 */
export function selectedSpan(start: Pos, end: Pos, lineLength: (line: number) => number): { start: Pos; end: Pos } {
  if (end.character === 0 && end.line > start.line) {
    return { start, end: { line: end.line - 1, character: lineLength(end.line - 1) } };
  }
  return { start, end };
}

/** "line 3" or "lines 1-4" (1-based), for a span from selectedSpan. */
export function linesLabel(start: Pos, end: Pos): string {
  const first = start.line + 1;
  const last = end.line + 1;
  return first === last ? `line ${first}` : `lines ${first}-${last}`;
}
