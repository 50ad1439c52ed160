/**
 * The webview's side of VS Code: messages to the extension and the state VS Code keeps for
 * the view across reloads. That state is the user's (draft, open cards, task list and its
 * fold), never the transcript: the extension sends that (`init`), from the server's record.
 */
import type { Todo } from "../src/protocol";
import type { FromWebview } from "../src/shared/messages";

interface VsCodeApi {
  postMessage(m: unknown): void;
  getState(): unknown;
  setState(s: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** The conversation's prompts when the draft was saved: how many, and a fingerprint of the last one (draft.ts). */
export interface PromptMark {
  prompts: number;
  last: string;
}

export interface SavedState {
  draft: string;
  draftAfter?: PromptMark;
  model: string;
  open: string[];
  todos?: Todo[];
  todosOpen?: boolean;
}

const vscode = acquireVsCodeApi();

export const post = (m: FromWebview): void => vscode.postMessage(m);

/** What the view saved before a reload (an older one's `items` are ignored). */
export const saved = (vscode.getState() as SavedState | undefined) ?? undefined;

let snapshot: () => SavedState = () => ({ draft: "", model: "", open: [] });
let saveQueued = false;

/** What to save, read when a save is due. */
export function savedFrom(s: () => SavedState): void {
  snapshot = s;
}

/** Saves the view's state once this task is done (many changes, one save). */
export function persist(): void {
  if (saveQueued) return;
  saveQueued = true;
  queueMicrotask(() => {
    saveQueued = false;
    vscode.setState(snapshot());
  });
}
