/**
 * The window's lasting name for the server (initializationOptions.windowId): the server remembers the chat
 * each window had open under it, so two windows on one folder each go back to their own after a restart.
 * Kept in workspaceState, which VS Code keeps per workspace (a folder window and a multi-root workspace that
 * holds the same folder have their own); windows that share that storage share the name, and the server's
 * lease still keeps them from sharing a chat.
 */
import { randomUUID } from "node:crypto";
import type * as vscode from "vscode";

export const WINDOW_ID_KEY = "agentls.windowId";

/** The stored name, made (and stored) the first time. */
export async function windowId(state: vscode.Memento): Promise<string> {
  const kept = state.get<string>(WINDOW_ID_KEY);
  if (typeof kept === "string" && kept) return kept;
  const made = randomUUID();
  await state.update(WINDOW_ID_KEY, made);
  return made;
}
