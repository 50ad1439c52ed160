/**
 * TypeScript mirror of docs/protocol.md (the single source of truth).
 * Field for field; keep in sync when the doc changes.
 *
 * This module has no runtime dependency on `vscode` so the webview and the
 * unit tests can import it.
 */

// ---------------------------------------------------------------- LSP basics

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

// ---------------------------------------------------------- Initialization

export interface InitializationOptions {
  apiKey?: string; // never echoed, never logged, never persisted
  settings?: AgentSettings; // same shape as workspace/didChangeConfiguration
  supportsConfirm?: boolean; // client answers agent/confirm requests
  supportsEvents?: boolean; // default true
}

export type ApprovalMode = "ask" | "always" | "never";

export interface AgentThresholds {
  budgetSoft?: number; // 0.50: old results budgeted to 30K chars
  budgetHard?: number; // 0.70: old results budgeted to 15K chars
  autoCompact?: number; // 0.85: L3 summary
  warn?: number; // 0.60: status level "warn"
  high?: number; // 0.85: status level "high"
}

export interface AgentSettings {
  model?: string; // default "claude-sonnet-5-5"
  compactModel?: string; // cheaper model for summaries (default: model)
  baseUrl?: string; // any Anthropic-compatible endpoint
  contextWindow?: number; // tokens, default 200000
  outputReserve?: number; // tokens kept free for the reply, default 20000
  maxTokens?: number; // per reply, default 8192
  thresholds?: AgentThresholds;
  approvals?: {
    shell?: ApprovalMode; // default "ask"
    write?: ApprovalMode; // default "ask" (edit_file + write_file)
  };
}

/** `workspace/didChangeConfiguration` params the server accepts. */
export interface DidChangeConfigurationParams {
  settings: { agentls: AgentSettings } | AgentSettings;
}

// ------------------------------------------------- Client → server requests

export const Methods = {
  chat: "agent/chat",
  compact: "agent/compact",
  cost: "agent/cost",
  clear: "agent/clear",
  context: "agent/context",
  event: "agent/event",
  contextUsage: "agent/contextUsage",
  confirm: "agent/confirm",
} as const;

export interface ChatParams {
  prompt: string;
  workDoneToken?: string | number;
  attachments?: Attachment[];
}

/** @-mentions, selections */
export interface Attachment {
  uri: string;
  text?: string;
  range?: Range;
}

export interface ChatResult {
  turnId: string;
  text: string;
  stopReason: string;
  usage: Usage;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface CompactParams {
  instructions?: string;
}

export interface CompactResult {
  tokensBefore: number;
  tokensAfter: number;
  summary: string;
}

export interface CostResult {
  model: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  usd: number;
}

/** `agent/clear` → `{}` */
export type ClearResult = Record<string, never>;

export type ContextLevel = "ok" | "warn" | "high";

export interface ContextCategories {
  system: number;
  tools: number;
  user: number;
  assistant: number;
  toolResults: number;
}

/** one per layer: truncate, budget, snip, clear, clearInputs, clearProse, microcompact, compact */
export interface LayerStat {
  layer: string;
  count: number;
  tokensSaved: number;
}

export interface Placeholder {
  toolUseId: string;
  tool: string;
  layer: string;
  ref: string; // context://<toolUseId>, accepted by read_file
  originalChars: number;
}

export interface ContextResult {
  model: string;
  demo: boolean;
  window: number;
  effectiveWindow: number;
  used: number;
  utilization: number;
  level: ContextLevel;
  categories: ContextCategories;
  layers: LayerStat[];
  placeholders: Placeholder[];
}

// ---------------------------------------------------------- Server → client

export type ToolMarker = "" | "truncated" | "budgeted" | "snipped" | "cleared";

export type AgentEvent =
  | { turnId: string; kind: "textDelta"; text: string }
  | { turnId: string; kind: "thinkingDelta"; text: string }
  | { turnId: string; kind: "toolStart"; toolUseId: string; tool: string; summary: string }
  | {
      turnId: string;
      kind: "toolEnd";
      toolUseId: string;
      tool: string;
      summary: string;
      isError: boolean;
      resultChars: number;
      marker: ToolMarker;
    }
  | { turnId: string; kind: "usage"; usage: Usage }
  | { turnId: string; kind: "compactionStarted"; reason: "auto" | "manual" }
  | { turnId: string; kind: "compactionFinished"; tokensBefore: number; tokensAfter: number }
  | { turnId: string; kind: "layer"; layer: string; toolUseIds: string[]; marker: string }
  | { turnId: string; kind: "retry"; attempt: number; delaySeconds: number; reason: string; discardPartial: boolean }
  | { turnId: string; kind: "error"; message: string };

export type AgentEventKind = AgentEvent["kind"];

export interface ContextUsage {
  model: string;
  demo: boolean;
  used: number;
  window: number;
  effectiveWindow: number;
  utilization: number;
  level: ContextLevel;
  categories: ContextCategories;
  layers: LayerStat[];
}

export type ConfirmKind = "shell" | "write" | "edit";

export interface ConfirmParams {
  kind: ConfirmKind;
  command?: string;
  path?: string;
  diff?: string;
}

/** remember: always for this session */
export interface ConfirmResult {
  approved: boolean;
  remember?: boolean;
}

// ------------------------------------------------------------------ Errors

export const ErrorCodes = {
  InvalidParams: -32602,
  InternalError: -32603,
  TurnRunning: -32002,
  RequestCancelled: -32800,
} as const;
