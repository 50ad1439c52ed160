/**
 * Checkpoints and rewind as the panel shows them (pure): the Restore menu's choices, the
 * preview shown before a restore, the quick pick's rows, and what to say afterwards.
 */
import type { CheckpointDiffResult, CheckpointFileDiff, CheckpointInfo, RestoreWhat, RewindResult } from "../protocol";
import { applyUnifiedDiff } from "./patch";
import type { NoticeAction } from "./transcript";
import { visible } from "./visible";

export const RESTORE_CHOICES: { restore: RestoreWhat; label: string; detail: string }[] = [
  { restore: "code", label: "Restore code", detail: "files as they were before this message; the conversation stays" },
  { restore: "conversation", label: "Restore conversation", detail: "the conversation back to before this message; files stay" },
  { restore: "both", label: "Restore code and conversation", detail: "both, as they were before this message" },
];

export const RESTORE_BUTTON = "Restore";
export const OVERWRITE_BUTTON = "Overwrite and Restore";

export function restoresCode(restore: RestoreWhat): boolean {
  return restore === "code" || restore === "both";
}

/** A file a restore changes: its text now and after the restore (the two sides of VS Code's diff editor). */
export interface RestoreSide {
  path: string;
  now: string;
  restored: string;
  conflict: boolean;
}

/**
 * Both sides of every file the restore changes, from its text now and the server's diff (from now to the
 * checkpoint); undefined when a diff does not apply to the text now (the preview is then the diff text).
 */
export function restoreSides(files: CheckpointFileDiff[], now: (path: string) => string): RestoreSide[] | undefined {
  const sides: RestoreSide[] = [];
  for (const f of files) {
    const current = f.change === "added" ? "" : now(f.path); // "added": the restore recreates it
    const restored = f.change === "deleted" ? "" : applyUnifiedDiff(current, f.diff);
    if (restored === undefined) return undefined;
    sides.push({ path: f.path, now: current, restored, conflict: f.conflict });
  }
  return sides;
}

/** The diff editor's title for one file. */
export function restoreSideTitle(side: RestoreSide): string {
  return `${visible(side.path)}: now ↔ after the restore${side.conflict ? " (your changes would be overwritten)" : ""}`;
}

/** The whole preview as one unified diff (shown when the diff editor cannot be: a diff that does not apply). */
export function previewText(diff: CheckpointDiffResult): string {
  if (!diff.files.length) return "# Nothing to restore: every file is already as it was at this checkpoint.\n";
  const parts = diff.files.map((f) => (f.conflict ? `# CHANGED OUTSIDE THE AGENT since: ${f.path}\n` : "") + f.diff);
  for (const s of diff.skipped) parts.push(`# not restored (${s.reason}): ${s.path}\n`);
  return parts.join("");
}

/** The modal's title and detail: what the restore does, conflicts first. */
export function restoreQuestion(prompt: string, restore: RestoreWhat, diff?: CheckpointDiffResult): { message: string; detail: string; button: string } {
  const what = restore === "code" ? "the files" : restore === "conversation" ? "the conversation" : "the files and the conversation";
  const message = `Restore ${what} to before “${visible(shorten(prompt, 80))}”?`;
  const lines: string[] = [];
  const conflicts = diff?.files.filter((f) => f.conflict) ?? [];
  if (conflicts.length) {
    lines.push("Changed outside the agent since (your changes would be overwritten):");
    for (const f of conflicts) lines.push(`  ${visible(f.path)}`);
    lines.push("");
  }
  if (diff) {
    if (diff.files.length) {
      lines.push(`${diff.files.length} file${diff.files.length === 1 ? "" : "s"} will change (see the diff):`);
      for (const f of diff.files) lines.push(`  ${changeVerb(f.change)} ${visible(f.path)}`);
    } else lines.push("No file needs to change.");
    for (const s of diff.skipped) lines.push(`  not restored: ${visible(s.path)} (${s.reason})`);
  }
  if (restore !== "code") lines.push("", "The messages after this one leave the conversation (a fork keeps them: Agent: Checkpoints).");
  if (restoresCode(restore)) lines.push("", "A checkpoint is taken first: this restore can itself be undone.");
  return { message, detail: lines.join("\n").trim(), button: conflicts.length ? OVERWRITE_BUTTON : RESTORE_BUTTON };
}

function changeVerb(change: string): string {
  return change === "added" ? "recreate" : change === "deleted" ? "delete" : "restore";
}

function shorten(text: string, n: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > n ? line.slice(0, n - 1) + "…" : line;
}

/** What to tell the user after agent/rewind. */
export function rewindSummary(r: RewindResult): string {
  if (r.cancelled) return "Restore cancelled: nothing changed.";
  const parts: string[] = [];
  if (r.restored.length) parts.push(`Restored ${r.restored.map((p) => `\`${visible(p)}\``).join(", ")}.`);
  else if (!r.conversation) parts.push("The files were already as they were at that checkpoint.");
  if (r.conflicts.length) parts.push(`Overwritten (changed outside the agent): ${r.conflicts.map((p) => `\`${visible(p)}\``).join(", ")}.`);
  for (const s of r.skipped) parts.push(`Not restored: \`${visible(s.path)}\` (${s.reason}).`);
  if (r.conversation) parts.push("The conversation is back to before that message.");
  if (r.undo) parts.push("Undo puts the files back as they were before this restore (also in Agent: Checkpoints).");
  return parts.join(" ");
}

/** The restore notice's Undo: restores the files to the checkpoint taken before the restore (null: none taken). */
export function undoAction(r: Pick<RewindResult, "undo" | "cancelled"> & { checkpoints?: CheckpointInfo[] }, prompt: string): NoticeAction | undefined {
  if (!r.undo || r.cancelled) return undefined;
  const named = r.checkpoints?.find((c) => c.id === r.undo)?.prompt ?? `Undo restore of “${shorten(prompt, 80)}”`;
  return { label: "Undo", title: "Put the files back as they were before this restore", post: { type: "restore", checkpoint: r.undo, restore: "code", prompt: named } };
}

/** A row of the Agent: Checkpoints quick pick. */
export function checkpointRow(c: CheckpointInfo, now: number): { label: string; description: string; detail: string } {
  const files = c.files.map((f) => `${f.change === "added" ? "+" : f.change === "deleted" ? "−" : "~"}${f.path}`);
  const skipped = c.skipped.map((s) => `${s.path} (not saved: ${s.reason})`);
  const ago = Math.max(0, Math.round((now - c.at) / 60));
  return {
    label: `${c.kind === "rewind" ? "$(history) " : ""}${visible(shorten(c.prompt, 90))}`,
    description: `${ago ? `${ago} min ago` : "just now"} · ${c.files.length} file${c.files.length === 1 ? "" : "s"}${c.rewound ? " · rewound" : ""}`,
    detail: [...files, ...skipped].join("  ").slice(0, 300),
  };
}
