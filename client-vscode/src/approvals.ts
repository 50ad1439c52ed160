/**
 * `agent/confirm`: asked inside the chat panel, on the tool call's card (the panel's inline approval
 * card: command or diff, Approve / Always / Reject with an optional reason). Only when no chat view is
 * visible does the native fallback ask: a modal for commands; for file changes a diff editor + a
 * notification that does not cover it.
 */
import * as vscode from "vscode";
import type { ConfirmParams, ConfirmResult } from "./protocol";
import {
  alwaysLine,
  askedInPanel,
  confirmButtons,
  confirmDetail,
  confirmResult,
  confirmTitle,
  withAllowRules,
} from "./shared/confirm";
import { applyUnifiedDiff } from "./shared/patch";
import { visible } from "./shared/visible";
import type { VirtualDocs } from "./virtualDocs";

export interface ConfirmUi {
  showWarningMessage(message: string, options: vscode.MessageOptions, ...items: string[]): Thenable<string | undefined>;
}

export function resolvePath(p: string): vscode.Uri | undefined {
  if (!p) return undefined;
  if (/^[a-z][a-z0-9+.-]+:\/\//i.test(p)) return vscode.Uri.parse(p);
  if (p.startsWith("/") || /^[A-Za-z]:[\\/]/.test(p)) return vscode.Uri.file(p);
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder ? vscode.Uri.joinPath(folder.uri, p) : undefined;
}

/** A file's text as the editor has it (an open document's, unsaved changes included), else on disk; "" if none. */
export async function currentText(uri: vscode.Uri | undefined): Promise<string> {
  if (!uri) return "";
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open) return open.getText();
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return "";
  }
}

/** Opens a diff editor for an edit/write approval; returns a function closing it. */
export async function showApprovalDiff(docs: VirtualDocs, p: ConfirmParams): Promise<() => Promise<void>> {
  const uri = resolvePath(p.path ?? "");
  const before = await currentText(uri);
  const name = (p.path ?? "file").split(/[\\/]/).pop() || "file";
  const id = docs.unique();
  let after = p.diff ? applyUnifiedDiff(before, p.diff) : undefined;
  let left: vscode.Uri;
  let right: vscode.Uri;
  if (after === undefined && p.diff) {
    // Could not apply (e.g. not a unified diff): show the diff text itself.
    right = docs.set(`/approval/${id}/${name}.diff`, p.diff);
    const doc = await vscode.workspace.openTextDocument(right);
    await vscode.languages.setTextDocumentLanguage(doc, "diff");
    await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: true });
  } else {
    after = after ?? before;
    left = docs.set(`/approval/${id}/before/${name}`, before);
    right = docs.set(`/approval/${id}/after/${name}`, after);
    await vscode.commands.executeCommand("vscode.diff", left, right, `Agent wants to ${p.kind} ${visible(p.path ?? name)} (proposed)`, {
      preview: true,
      preserveFocus: true,
    });
  }
  return async () => {
    for (const group of vscode.window.tabGroups.all) {
      for (const tab of group.tabs) {
        const input = tab.input;
        const hit =
          (input instanceof vscode.TabInputTextDiff && input.modified.toString() === right.toString()) ||
          (input instanceof vscode.TabInputText && input.uri.toString() === right.toString());
        if (hit) await vscode.window.tabGroups.close(tab).then(undefined, () => undefined);
      }
    }
    docs.delete(right);
    if (left) docs.delete(left);
  };
}

/** Where "Always" keeps its rules: `agentls.permissions` of the workspace when a folder is open, else the user's. */
export interface KeptRules {
  where: string; // said to the user
  open: string; // the command that opens that settings file
}
export type RuleWriter = (rules: string[]) => Promise<KeptRules | undefined>;

export async function writeAllowRules(rules: string[]): Promise<KeptRules | undefined> {
  const config = vscode.workspace.getConfiguration("agentls");
  const inWorkspace = !!vscode.workspace.workspaceFolders?.length;
  const target = inWorkspace ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  const inspected = config.inspect<Record<string, unknown>>("permissions");
  const current = inWorkspace ? inspected?.workspaceValue : inspected?.globalValue;
  await config.update("permissions", withAllowRules(current as never, rules), target);
  return inWorkspace
    ? { where: "workspace settings (.vscode/settings.json)", open: "workbench.action.openWorkspaceSettingsFile" }
    : { where: "user settings", open: "workbench.action.openSettingsJson" };
}

/**
 * Asks in the chat panel; undefined when no chat view is visible (then the native fallback asks).
 * `fallback` asks natively: the panel uses it when every chat view is hidden while the question waits.
 */
export type PanelAsk = (
  p: ConfirmParams,
  token: vscode.CancellationToken | undefined,
  fallback: () => Promise<ConfirmResult>,
) => Promise<ConfirmResult> | undefined;

export function makeConfirmHandler(
  docs: VirtualDocs,
  ui: ConfirmUi = vscode.window,
  keep: RuleWriter = writeAllowRules,
  panel?: PanelAsk,
) {
  const native = async (p: ConfirmParams, token?: vscode.CancellationToken): Promise<ConfirmResult> => {
    let close: (() => Promise<void>) | undefined;
    let result: ConfirmResult;
    try {
      if (p.kind === "write" || p.kind === "edit") close = await showApprovalDiff(docs, p).catch(() => undefined);
      if (token?.isCancellationRequested) return { approved: false, remember: false };
      const { modal, buttons } = confirmButtons(p);
      // Non-modal (file changes): the diff editor shows the change; the notification names the file.
      const always = alwaysLine(p);
      const message = modal ? confirmTitle(p) : `${confirmTitle(p)} — see the proposed diff.${always ? ` (${always})` : ""}`;
      const choice = await ui.showWarningMessage(message, modal ? { modal, detail: confirmDetail(p) } : {}, ...buttons);
      result = confirmResult(choice);
    } finally {
      if (close) await close();
    }
    return result;
  };
  return async (p: ConfirmParams, token?: vscode.CancellationToken): Promise<ConfirmResult> => {
    const inPanel = askedInPanel(p) ? panel?.(p, token, () => native(p, token)) : undefined;
    const result = await (inPanel ?? native(p, token));
    // "Always", in the panel or in the fallback dialog, keeps the request's rules where the user sees them
    if (result.approved && result.remember && p.rules?.length) void keepRules(keep, p.rules);
    return result;
  };
}

/** "Always" → the rules go into agentls.permissions.allow, and the user is told where (to see or remove them). */
async function keepRules(keep: RuleWriter, rules: string[]): Promise<void> {
  const listed = rules.map((r) => `\`${r}\``).join(", ");
  try {
    const kept = await keep(rules);
    if (!kept) return;
    const open = "Open Settings";
    const pick = await vscode.window.showInformationMessage(
      `Agent: allowed from now on: ${listed} — added to agentls.permissions in the ${kept.where}; remove it there to be asked again.`,
      open,
    );
    if (pick === open) await vscode.commands.executeCommand(kept.open);
  } catch (e) {
    void vscode.window.showWarningMessage(`Agent: ${listed} applies for this session, but could not be saved to agentls.permissions: ${(e as Error).message ?? e}`);
  }
}

