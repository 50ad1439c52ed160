/**
 * Agent: Show Chat History — every conversation of this workspace in a quick
 * pick (type to search): pick one to resume it; rename and delete buttons on
 * each row (delete asks first, since it cannot be undone).
 */
import * as vscode from "vscode";
import type { AgentClient } from "./client";
import type { ChatController } from "./chatView";
import { Methods, type SessionInfo, type SessionsResult } from "./protocol";
import { confirmDestroying } from "./destructive";
import { sessionRow } from "./shared/sessionItems";

interface Item extends vscode.QuickPickItem {
  session: SessionInfo;
}

const RENAME: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("edit"), tooltip: "Rename" };
const DELETE: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("trash"), tooltip: "Delete" };

async function items(agent: AgentClient): Promise<Item[]> {
  const { sessions } = await agent.request<SessionsResult>(Methods.sessions, {});
  const now = Date.now() / 1000;
  return sessions.map((session) => ({
    ...sessionRow(session, now),
    session,
    buttons: session.current || session.inUse ? [RENAME] : [RENAME, DELETE],
  }));
}

export async function showHistory(agent: AgentClient, chat: ChatController): Promise<void> {
  const pick = vscode.window.createQuickPick<Item>();
  pick.title = "Agent: Chat History";
  pick.placeholder = "Search conversations; Enter resumes one";
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  const reload = async () => {
    pick.busy = true;
    try {
      pick.items = await items(agent);
    } catch (e) {
      pick.hide();
      void vscode.window.showWarningMessage(`Agent: the history is not available: ${(e as Error).message ?? e}`);
    } finally {
      pick.busy = false;
    }
  };
  pick.onDidTriggerItemButton(async ({ button, item }) => {
    if (button === RENAME) {
      const title = await vscode.window.showInputBox({ title: "Rename conversation", value: item.session.title });
      if (title?.trim()) await agent.request(Methods.renameSession, { sessionId: item.session.id, title: title.trim() });
      pick.show();
    } else if (button === DELETE) {
      const sure = await confirmDestroying(
        `Delete the conversation "${item.session.title}"?`,
        "Its messages and stored tool results are removed for good.",
        "Delete",
        true, // Cancel is the default button: Enter keeps the conversation
      );
      if (sure) await agent.request(Methods.deleteSession, { sessionId: item.session.id });
      pick.show();
    }
    await reload();
  });
  pick.onDidAccept(async () => {
    const chosen = pick.selectedItems[0];
    pick.hide();
    if (chosen && !chosen.session.current) await chat.resume(chosen.session.id);
  });
  pick.onDidHide(() => pick.dispose());
  pick.show();
  await reload();
}
