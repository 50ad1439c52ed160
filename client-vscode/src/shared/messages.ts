/** Messages between the extension and the chat webview. */
import type { AgentMode, CommandInfo, ContextUsage, ModelInfo, RestoreWhat, Todo } from "../protocol";
import type { PanelChoice } from "./confirm";
import type { SlashName } from "./slash";
import type { TranscriptItem, TranscriptMessage } from "./transcript";

export interface PendingAttachment {
  uri: string;
  label: string; // e.g. "src/app.py:10-20"
  range?: { start: { line: number; character: number }; end: { line: number; character: number } };
}

/** `init`: the whole transcript (a view opening, another conversation); `loading`: the extension is still
 * fetching the server's transcript of record (after a reload), another `init` follows. */
export type ToWebview =
  | TranscriptMessage
  | { type: "init"; items: TranscriptItem[]; busy: boolean; server: ServerStatus; modelLabel: string; loading?: boolean }
  | { type: "progress"; message: string }
  | { type: "server"; status: ServerStatus }
  | { type: "model"; label: string }
  | { type: "models"; models: ModelInfo[]; source: "endpoint" | "fallback"; note: string; current: string; configured: string; demo: boolean }
  | { type: "contextUsage"; usage: ContextUsage }
  | { type: "mentionResults"; query: string; items: string[]; seq?: number }
  | { type: "insertText"; text: string }
  | { type: "focusInput" }
  | { type: "todos"; todos: Todo[] } // the task list (agent/todos, `todos` events)
  | { type: "mode"; mode: AgentMode } // plan mode or acting (agent/mode)
  | { type: "commands"; commands: CommandInfo[] } // custom slash commands (agent/commands)
  | { type: "approvalDone"; id: string }; // answered (here or in another view), or withdrawn by the server

export interface ServerStatus {
  phase: "starting" | "running" | "restarting" | "stopped" | "error" | "setup";
  message?: string;
}

export type FromWebview =
  | { type: "ready" }
  | { type: "send"; text: string }
  | { type: "stop" }
  | { type: "setModel"; model: string }
  | { type: "setMode"; mode: AgentMode } // the plan-mode toggle
  | { type: "approvePlan" } // leave plan mode and act on the plan
  | { type: "command"; name: SlashName; args: string }
  | { type: "customCommand"; name: string; args: string }
  | { type: "mentionQuery"; query: string; seq?: number }
  | { type: "copy"; text: string }
  | { type: "openFile"; path: string; line?: number }
  | { type: "toolResult"; toolUseId: string }
  | { type: "openOriginal"; toolUseId: string }
  | { type: "openSummary"; summary: string; label: string }
  | { type: "restartServer" }
  | { type: "restore"; checkpoint: string; restore: RestoreWhat; prompt: string }
  | { type: "approvalAnswer"; id: string; choice: PanelChoice; reason: string };
