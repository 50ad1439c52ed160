/**
 * A question whose yes destroys the user's work (overwrite their edits, delete a chat): asked so that
 * Enter keeps the work. A modal message cannot do that: VS Code makes the action its primary button
 * whatever the order and a close affordance is never the default (seen in code-server, e2e step 17f).
 * So it is a quick pick whose first, active item is Cancel: Enter and Escape both keep the work, and
 * nothing modal covers the preview (the diff tab stays scrollable).
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
