/**
 * The first-run notice for the offline demo model: once per workspace, with
 * the two things a user may want next (the server sends none: showsDemoNotice).
 */
import * as vscode from "vscode";
import type { ContextUsage } from "./protocol";

export const SHOWN_KEY = "agentls.demoNoticeShown";
export const SET_KEY = "Set API Key";
export const USE_DEMO = "Use Demo Model";
export const MESSAGE =
  "Agent: no API key is set, so the offline demo model answers. It reads, lists and searches files, " +
  "and runs commands and edits files after you approve them; every reply is labelled. " +
  "Set an Anthropic API key to use a real model.";

/** Shows the notice the first time a workspace runs on the demo model; later usages change nothing. */
export async function maybeShowDemoNotice(state: vscode.Memento, usage: Pick<ContextUsage, "demo">): Promise<void> {
  if (!usage.demo || state.get<boolean>(SHOWN_KEY)) return;
  await state.update(SHOWN_KEY, true); // before awaiting the user, so a second usage cannot show it again
  const pick = await vscode.window.showInformationMessage(MESSAGE, SET_KEY, USE_DEMO);
  if (pick === SET_KEY) await vscode.commands.executeCommand("agentls.setApiKey");
}
