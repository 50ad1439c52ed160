/**
 * Agent: Checkpoints — the checkpoints of this conversation in a quick pick (newest first):
 * pick one, then what to restore (code / conversation / both), or fork a new chat from it.
 * The restore itself goes through the panel (diff preview, then a modal).
 */
import * as vscode from "vscode";
import type { AgentClient } from "./client";
import type { ChatController } from "./chatView";
import { Methods, type CheckpointInfo, type CheckpointsResult, type RestoreWhat } from "./protocol";
import { RESTORE_CHOICES, checkpointRow } from "./shared/checkpoints";

interface Item extends vscode.QuickPickItem {
  checkpoint: CheckpointInfo;
}

interface Action extends vscode.QuickPickItem {
  restore?: RestoreWhat;
  fork?: boolean;
}

export async function showCheckpoints(agent: AgentClient, chat: ChatController): Promise<void> {
  let checkpoints: CheckpointInfo[];
  try {
    checkpoints = (await agent.request<CheckpointsResult>(Methods.checkpoints, {})).checkpoints;
  } catch (e) {
    void vscode.window.showWarningMessage(`Agent: checkpoints are not available: ${(e as Error).message ?? e}`);
    return;
  }
  if (!checkpoints.length) {
    void vscode.window.showInformationMessage("Agent: no checkpoints yet. A turn that changes files takes one.");
    return;
  }
  const now = Date.now() / 1000;
  const items: Item[] = [...checkpoints].reverse().map((checkpoint) => ({ ...checkpointRow(checkpoint, now), checkpoint }));
  const picked = await vscode.window.showQuickPick(items, {
    title: "Agent: Checkpoints",
    placeHolder: "Pick a checkpoint: restore the files and/or the conversation as they were before it",
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!picked) return;
  const choices: Action[] =
    picked.checkpoint.kind === "rewind"
      ? [{ label: "Undo that restore", detail: "files as they were before it", restore: "code" }]
      : [
          ...RESTORE_CHOICES.map((c) => ({ label: c.label, detail: c.detail, restore: c.restore })),
          { label: "Fork a new chat from here", detail: "the conversation before this message, in a new chat; files stay", fork: true },
        ];
  const action = await vscode.window.showQuickPick(choices, { title: picked.label });
  if (!action) return;
  if (action.fork) await chat.fork(picked.checkpoint.id);
  else if (action.restore) await chat.restore(picked.checkpoint.id, action.restore, picked.checkpoint.prompt);
}
