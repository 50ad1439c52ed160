/**
 * A modal question whose yes destroys the user's work (overwrite their edits, delete a chat):
 * Cancel comes first, so that it is the default button and Enter keeps the work. The first button
 * of a modal message is its default (microsoft/vscode#21004: "the left button is always the
 * default"); `isCloseAffordance` makes it the answer to Escape too, and replaces the extra Cancel.
 */
import * as vscode from "vscode";

export const CANCEL: vscode.MessageItem = { title: "Cancel", isCloseAffordance: true };

/** True when the user chose `action`; `destroys`: the safe choice is the default (else the action is). */
export async function confirmModal(message: string, detail: string, action: string, destroys: boolean): Promise<boolean> {
  const items: vscode.MessageItem[] = destroys ? [CANCEL, { title: action }] : [{ title: action }];
  const choice = await vscode.window.showWarningMessage(message, { modal: true, detail }, ...items);
  return choice?.title === action;
}
