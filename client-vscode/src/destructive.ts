/**
 * A question whose yes destroys the user's work (overwrite their edits, delete a chat): asked so that
 * Enter keeps the work. A modal message cannot do that: VS Code makes the action its primary button
 * whatever the order and a close affordance is never the default (seen in code-server, e2e step 17f).
 * So it is a quick pick whose first, active item is Cancel: Enter and Escape both keep the work, and
 * nothing modal covers the preview (the diff editor stays scrollable).
 */
import * as vscode from "vscode";

export const KEEP = "Cancel";

/** True when the user chose `action`. `destroys`: false asks the usual modal, the action its default. */
export async function confirmDestroying(message: string, detail: string, action: string, destroys: boolean): Promise<boolean> {
  if (!destroys) {
    return (await vscode.window.showWarningMessage(message, { modal: true, detail }, action)) === action;
  }
  const items: vscode.QuickPickItem[] = [
    { label: KEEP, detail: "Keep your changes (Enter or Escape)" },
    { label: action, detail: detail.replace(/\s*\n\s*/g, " · ").trim() },
  ];
  const picked = await vscode.window.showQuickPick(items, { title: message, placeHolder: "Enter keeps your work; choose the action below to go ahead", ignoreFocusOut: true });
  return picked?.label === action;
}

/**
 * A question asked beside a preview (a restore's diff editors): a quick pick that stays open while the user
 * scrolls the diff, never a modal over it. When the user's work is at stake Cancel comes first (Enter keeps
 * it); else the action does (a restore takes a checkpoint first: it can be undone).
 */
export async function confirmBesidePreview(message: string, detail: string, action: string, destroys: boolean): Promise<boolean> {
  if (destroys) return confirmDestroying(message, detail, action, true);
  const items: vscode.QuickPickItem[] = [
    { label: action, detail: detail.replace(/\s*\n\s*/g, " · ").trim() },
    { label: KEEP, detail: "Change nothing (Escape)" },
  ];
  const picked = await vscode.window.showQuickPick(items, { title: message, placeHolder: "The diff editor shows what changes; Enter goes ahead", ignoreFocusOut: true });
  return picked?.label === action;
}
