/**
 * Apply a unified diff to a text (for the approval diff view), with the `diff` package. Pure.
 *
 * The package parses and fits the hunks; this module only maps its outcomes
 * onto "the patched text, or undefined". Where it differs from the hand-written
 * applier it replaced: a hunk is searched for anywhere in the text (nearest to
 * its stated line first), not only within 50 lines of it; a hunk whose line
 * counts disagree with its header, or a diff of several files, does not apply;
 * "\ No newline at end of file" is honoured.
 */
import { applyPatch, parsePatch } from "diff";

/** Returns the patched text, or undefined when the diff does not apply (context lines must match). */
export function applyUnifiedDiff(original: string, diff: string): string | undefined {
  let patches;
  try {
    patches = parsePatch(diff);
  } catch {
    return undefined; // malformed: a line no hunk can hold, or counts that disagree with the header
  }
  if (patches.length !== 1 || patches[0].hunks.length === 0) return undefined; // several files, or no hunks
  const patched = applyPatch(original, patches[0]);
  return patched === false ? undefined : patched;
}
