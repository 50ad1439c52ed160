/**
 * Restore (code / conversation / both) to before a message, and fork a new chat from there.
 * A restore of code shows each file in VS Code's diff editor first (now ↔ after the restore), then one
 * question asks, naming the files changed outside the agent; the paths agreed to there go with the request (`overwrite`), so the server does not
 * ask again. Its result carries the task list and the checkpoints as they are after it.
 */
import * as vscode from "vscode";
import type { AgentClient } from "../client";
import {
  Methods,
  type CheckpointDiffResult,
  type CheckpointInfo,
  type ForkResult,
  type RestoreWhat,
  type RewindParams,
  type RewindResult,
  type Todo,
} from "../protocol";
import { currentText, resolvePath } from "../approvals";
import { confirmBesidePreview, confirmDestroying } from "../destructive";
import {
  OVERWRITE_BUTTON,
  previewText,
  restoreQuestion,
  restoreSides,
  restoreSideTitle,
  restoresCode,
  rewindSummary,
  undoAction,
} from "../shared/checkpoints";
import { fromSession } from "../shared/transcriptOfRecord";
import type { VirtualDocs } from "../virtualDocs";
import type { Panel } from "./panel";
import type { Sessions } from "./sessions";
import type { Turns } from "./turns";

/** `overwrite`: the conflicting paths the user agreed to overwrite (a server that knows it asks nothing more). */
export type RewindRequest = RewindParams & { overwrite?: string[] };
/** `todos` and `checkpoints` as they are after the rewind (absent from an older server: asked for). */
export type RewindReply = RewindResult & { todos?: Todo[]; checkpoints?: CheckpointInfo[] };

/** What a yes in the restore question agreed to overwrite: the files changed outside the agent. */
export function agreedOverwrites(diff: CheckpointDiffResult | undefined): string[] {
  return diff?.files.filter((f) => f.conflict).map((f) => f.path) ?? [];
}

export class Checkpoints {
  constructor(
    private readonly agent: AgentClient,
    private readonly panel: Panel,
    private readonly sessions: Sessions,
    private readonly turns: Turns,
    private readonly docs?: VirtualDocs,
  ) {}

  /**
   * Restore to before a message: the diff is shown first (code), then a question asks, naming
   * files changed outside the agent; the request says which of them the user agreed to overwrite.
   */
  async restore(checkpoint: string, restore: RestoreWhat, prompt: string): Promise<boolean> {
    if (this.turns.busy) {
      void vscode.window.showWarningMessage("Agent: stop the running turn before restoring.");
      return false;
    }
    let closePreview: (() => Promise<void>) | undefined;
    try {
      let diff: CheckpointDiffResult | undefined;
      if (restoresCode(restore)) {
        diff = await this.agent.request<CheckpointDiffResult>(Methods.checkpointDiff, { checkpoint });
        closePreview = await this.showPreview(checkpoint, diff);
      }
      const question = restoreQuestion(prompt, restore, diff);
      // over the user's own changes: Cancel is the default button (Enter must not destroy their work)
      const destroys = question.button === OVERWRITE_BUTTON;
      // a code restore asks beside its diff editors (never a modal over them); the conversation alone as usual
      const ask = restoresCode(restore) ? confirmBesidePreview : confirmDestroying;
      if (!(await ask(question.message, question.detail, question.button, destroys))) return false;
      const params: RewindRequest = { checkpoint, restore };
      const overwrite = agreedOverwrites(diff);
      if (overwrite.length) params.overwrite = overwrite;
      const result = await this.turns.whileSwitching(this.agent.request<RewindReply>(Methods.rewind, params));
      if (result.transcript) this.sessions.show(fromSession(result.transcript));
      // the task list as it was before that message (saved with the conversation)
      if (result.todos) this.panel.setTodos(result.todos);
      else if (result.transcript) await this.sessions.refreshTodos();
      await this.sessions.markRewound(result.checkpoints);
      this.panel.notice(rewindSummary(result), result.cancelled ? "warn" : "info", undefined, undoAction(result, prompt));
      return !result.cancelled;
    } catch (e) {
      this.panel.notice(`Restore failed: ${(e as Error).message ?? e}`, "error");
      return false;
    } finally {
      if (closePreview) await closePreview();
    }
  }

  /** Start a new session from the conversation before a message (Agent: Checkpoints → Fork). */
  fork(checkpoint: string): Promise<void> {
    return this.turns.whileSwitching(this.forkNow(checkpoint));
  }

  private async forkNow(checkpoint: string): Promise<void> {
    try {
      const r = await this.agent.request<ForkResult>(Methods.fork, { checkpoint });
      this.sessions.show(fromSession(r.transcript), r.sessionId);
      await this.sessions.refreshTodos();
      await this.sessions.markRewound();
      this.panel.notice("Forked: a new chat holds the conversation up to that message; the old one stays in the history.", "info");
    } catch (e) {
      this.panel.notice(`Fork failed: ${(e as Error).message ?? e}`, "error");
    }
  }

  /**
   * The restore's preview: each file in VS Code's diff editor, its text now beside its text after the restore
   * (the question that follows is a quick pick, never a modal over them: the diff stays open to scroll). A diff that does not
   * apply to the file as it is now: the whole diff as text instead.
   */
  private async showPreview(checkpoint: string, diff: CheckpointDiffResult): Promise<() => Promise<void>> {
    const docs = this.docs;
    if (!docs) return async () => undefined;
    const texts = new Map<string, string>();
    for (const f of diff.files) texts.set(f.path, await currentText(resolvePath(f.path)));
    const sides = restoreSides(diff.files, (p) => texts.get(p) ?? "");
    const shown: vscode.Uri[] = [];
    if (sides?.length) {
      const id = docs.unique();
      for (const side of sides) {
        const left = docs.set(`/checkpoint/${checkpoint}/${id}/now/${side.path}`, side.now);
        const right = docs.set(`/checkpoint/${checkpoint}/${id}/restored/${side.path}`, side.restored);
        shown.push(left, right);
        await vscode.commands.executeCommand("vscode.diff", left, right, restoreSideTitle(side), { preview: false, preserveFocus: true });
      }
    } else {
      const uri = docs.set(`/checkpoint/${checkpoint}/restore preview.diff`, previewText(diff));
      shown.push(uri);
      let doc = await vscode.workspace.openTextDocument(uri);
      doc = await vscode.languages.setTextDocumentLanguage(doc, "diff");
      await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: true });
    }
    const ours = new Set(shown.map((u) => u.toString()));
    return async () => {
      for (const group of vscode.window.tabGroups.all) {
        for (const tab of group.tabs) {
          const input = tab.input;
          const hit =
            (input instanceof vscode.TabInputTextDiff && ours.has(input.modified.toString())) ||
            (input instanceof vscode.TabInputText && ours.has(input.uri.toString()));
          if (hit) await vscode.window.tabGroups.close(tab).then(undefined, () => undefined);
        }
      }
      for (const uri of shown) docs.delete(uri);
    };
  }
}
