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
  showsDemoNotice?: boolean; // the client explains the demo model itself (once per workspace)
  editorQueries?: EditorQueryKind[]; // kinds of agent/editorQuery the client answers (default none)
  windowId?: string; // a lasting name for this window (1–200 characters): its open chat is remembered under it
}

export type ApprovalMode = "ask" | "always" | "never";

export type ThinkingSetting = "auto" | "off" | "low" | "medium" | "high" | "xhigh" | "max";

/** A `prices` entry: any of the five prices (cache ones default to Anthropic's multiples of input). */
export interface ModelPrice {
  input?: number;
  output?: number;
  cache_write?: number;
  cache_read?: number;
  cache_write_1h?: number;
}

export interface AgentThresholds {
  budgetSoft?: number; // 0.50: old results budgeted to 30K chars
  budgetHard?: number; // 0.70: old results budgeted to 15K chars
  autoCompact?: number | null; // 1: L3 summary when the request would not fit (sooner when it pays); null: never on its own
  warn?: number; // 0.60: status level "warn"
  high?: number; // 0.85: status level "high"
}

export interface AgentSettings {
  model?: string; // default: chosen from the endpoint's models (agent/models); offline fallback "claude-sonnet-5-5"
  compactModel?: string; // cheaper model for summaries (default: model)
  baseUrl?: string; // any Anthropic-compatible endpoint
  contextWindow?: number; // the working window, default min(the model's window, 200000); never above the model's
  outputReserve?: number; // tokens kept free for the reply, default 10% of the window (≤ 32000), raised to what maxTokens needs of the model's window
  maxTokens?: number; // per reply, default 8192; never above the model's maxOutput
  thinking?: ThinkingSetting; // default "auto": adaptive where the model advertises it, a budget where only that
  prices?: { [modelFragment: string]: ModelPrice }; // USD per million tokens for models without a list price
  cacheTtl?: "auto" | "5m" | "1h"; // prompt-cache TTL of the head and frontier breakpoints, default "auto"
  cacheControl?: boolean; // send prompt-cache breakpoints; default: only to api.anthropic.com (true: a caching proxy)
  cacheDiagnostics?: boolean; // ask why the prompt cache missed; default: only api.anthropic.com
  toolSearch?: "auto" | "builtin" | "off"; // deferring many MCP tool schemas (README "Tool search"); default "auto"
  thresholds?: AgentThresholds;
  approvals?: {
    shell?: ApprovalMode; // default "ask"
    write?: ApprovalMode; // default "ask" (edit_file + write_file)
    timeoutSeconds?: number; // default 300: an unanswered agent/confirm then counts as a refusal
  };
  diagnosticsWaitMs?: number; // after an edit of an open file, wait up to this long for its diagnostics; default 2000
  mcpServers?: { [name: string]: McpServerConfig }; // MCP servers whose tools the agent may call
  permissions?: Permissions; // which tool calls run without asking, always ask, never run
}

/** Rules: "tool" or "tool(pattern)", e.g. "run_shell(npm test*)", "edit_file(*.lock)". */
export interface Permissions {
  allow?: string[];
  ask?: string[];
  deny?: string[];
}

/** One entry of `mcpServers`, the `mcp.json` shape; exactly one of command / url. */
export interface McpServerConfig {
  command?: string; // stdio: the program to start
  args?: string[];
  env?: { [name: string]: string }; // secret: values never logged, shown or echoed
  cwd?: string; // default: the first workspace folder
  url?: string; // streamable HTTP endpoint
  headers?: { [name: string]: string }; // secret, like env
  approval?: ApprovalMode; // default "ask": for every tool of this server
  tools?: { [tool: string]: ApprovalMode }; // per tool, over `approval`; "never": not offered
  timeout?: number; // seconds per tool call, default 60
  startupTimeout?: number; // seconds to start and list the tools, default 30
  disabled?: boolean;
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
  models: "agent/models",
  clear: "agent/clear",
  context: "agent/context",
  event: "agent/event",
  contextUsage: "agent/contextUsage",
  confirm: "agent/confirm",
  toolResult: "agent/toolResult",
  sessions: "agent/sessions",
  newSession: "agent/newSession",
  resume: "agent/resume",
  renameSession: "agent/renameSession",
  deleteSession: "agent/deleteSession",
  editorQuery: "agent/editorQuery",
  mcpServers: "agent/mcpServers",
  checkpoints: "agent/checkpoints",
  checkpointDiff: "agent/checkpointDiff",
  rewind: "agent/rewind",
  fork: "agent/fork",
  todos: "agent/todos",
  commands: "agent/commands",
  expandCommand: "agent/expandCommand",
  permissions: "agent/permissions",
  mode: "agent/mode",
} as const;

export interface ChatParams {
  prompt: string;
  workDoneToken?: string | number;
  attachments?: Attachment[];
}

/** @-mentions, selections; an image: base64 `data` (and its `mimeType`) */
export interface Attachment {
  uri: string;
  text?: string;
  range?: Range;
  data?: string;
  mimeType?: string;
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
  /** false: nothing to gain, the conversation is unchanged */
  compacted: boolean;
  /** why nothing changed ("" when compacted) */
  note: string;
}

export interface ToolResultParams {
  toolUseId: string;
  /** also send the full original text */
  original?: boolean;
}

export type ResultMarker = ToolMarker | "compacted";

/** `agent/toolResult`: one tool call's input and its result as the model last saw it. */
export interface ToolResult {
  toolUseId: string;
  tool: string;
  input: Record<string, unknown>;
  isError: boolean;
  text: string;
  sent: boolean;
  marker: ResultMarker;
  layer: string;
  /** ISO 8601 UTC of the first request carrying the rewrite; "" if none */
  rewrittenAt: string;
  /** context://<toolUseId> when the full original is kept; else "" */
  ref: string;
  originalChars: number;
  original: string | null;
}

export interface CostResult {
  model: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** The part of cacheWriteTokens written with the 1-hour TTL (2× input). */
  cacheWrite1hTokens: number;
  /** TTL of the head and frontier cache breakpoints for the next request. */
  cacheTtl: "5m" | "1h";
  /** USD of the requests whose model has a known price */
  usd: number;
  /** models of this session without a known price: their tokens are counted, their cost is unknown */
  unpricedModels: string[];
  /** each subagent (`task` call) of the conversation; the totals above include them */
  subagents?: SubagentCost[]; // absent from an older server
  /** why the prompt cache missed; only when the server has something to tell */
  cache?: CacheReport;
}

/** What one subagent cost (its `task` call's id and description). */
export interface SubagentCost {
  toolUseId: string;
  name: string;
  model: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  usd: number;
}

/** Cache diagnoses and thinking transformations of the session (agent/cache_report.py computes every figure). */
export interface CacheReport {
  requests: RequestCache[]; // the last 50 answered requests, oldest first
  totalRequests: number;
  misses: MissTotal[]; // diagnosed misses by reason, most frequent first
  recentMisses: RequestCache[]; // the last 5 requests that missed
  thinkingDropped: DropTotal[]; // thinking blocks the API removed, by reason
  thinkingLetThrough: number; // failed a binding check, shown to the model all the same
  serverEdits: number; // server-side context edits applied
}

export interface RequestCache {
  number: number;
  model: string;
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  miss: CacheMiss | null;
  thinkingDropped: number;
  serverEdits: number;
}

export interface CacheMiss {
  kind: string; // the API's cache_miss_reason type: "system_changed", "messages_changed"…
  text: string; // in words, as every front end shows it
  missedTokens: number | null; // input tokens not read from cache because of it (when the API gives it)
}

export interface MissTotal {
  kind: string;
  text: string;
  count: number;
  missedTokens: number;
}

export interface DropTotal {
  reason: string;
  text: string;
  count: number;
}

export interface ModelsResult {
  /** exactly the endpoint's Models API list; agentls' offline table when source is "fallback" */
  models: ModelInfo[];
  source: "endpoint" | "fallback";
  /** why the fallback is shown ("" for the endpoint's list) */
  note: string;
  /** the model that answers now ("demo model (offline)" in demo mode) */
  current: string;
  /** settings.model; "" when none is set (the server's default rule chooses) */
  configured: string;
  demo: boolean;
}

/** One model of the endpoint. Prices in USD per million tokens; null: price unknown. */
export interface ModelInfo {
  id: string;
  label: string;
  /** the model's window (max_input_tokens); null when unknown */
  contextWindow: number | null;
  /** the largest max_tokens it takes; null when unknown */
  maxOutput: number | null;
  /** RFC 3339 release date, "" when unknown */
  createdAt: string;
  thinking: "adaptive" | "manual" | "none";
  /** effort levels it advertises */
  efforts: string[];
  lifecycle: string;
  inputPerMTok: number | null;
  outputPerMTok: number | null;
  cacheReadPerMTok: number | null;
  cacheWritePerMTok: number | null;
}

export type TodoStatus = "pending" | "in_progress" | "completed";

export interface Todo {
  content: string;
  status: TodoStatus;
}

/** `agent/todos`: the task list as the model last wrote it (todo_write). */
export interface TodosResult {
  todos: Todo[];
}

/** `agent/mode`: plan mode (read and search only, a plan in the task list) or acting; no `mode`: ask. */
export type AgentMode = "act" | "plan";

export interface ModeParams {
  mode?: AgentMode;
}

export interface ModeResult {
  mode: AgentMode;
}

export interface CommandInfo {
  name: string;
  description: string;
  source: "workspace" | "user";
  argumentHint: string;
}

/** `agent/commands`: custom slash commands (.agents/commands/*.md, the user's commands folder). */
export interface CommandsResult {
  commands: CommandInfo[];
}

export interface ExpandCommandParams {
  name: string;
  arguments?: string;
}

export interface ExpandCommandResult {
  prompt: string;
}

export interface PermissionRule {
  rule: string;
  decision: "allow" | "ask" | "deny";
  source: string;
}

/** `agent/permissions`: the rules in force and where each is written. */
export interface PermissionsResult {
  rules: PermissionRule[];
}

/** `agent/clear` → `{}` */
export type ClearResult = Record<string, never>;

// ---------------------------------------------------------- Sessions

export interface SessionsParams {
  query?: string; // words that must all occur in the title or id
}

export interface SessionsResult {
  sessions: SessionInfo[];
  current: string | null;
}

export interface SessionInfo {
  id: string;
  title: string; // the first prompt, until renamed
  workspace: string;
  created: number; // seconds since the epoch (0: nothing written yet)
  updated: number;
  turns: number;
  tokens: number;
  costUsd: number;
  inUse: boolean; // open in another window
  current: boolean; // this window's conversation
}

export interface NewSessionResult {
  sessionId: string;
}

export interface ResumeParams {
  sessionId: string;
}

export interface ResumeResult {
  sessionId: string;
  transcript: TranscriptEntry[];
}

/** The transcript of record: what the user saw, as it happened (never the model's rewritten history). */
export interface TranscriptEntry {
  kind: "message" | "compaction" | "note";
  role: "user" | "assistant" | "system"; // system: compaction dividers and notes
  text: string;
  tools: TranscriptTool[]; // a reply's cards, in the order they were called
  turnId: string; // "" in sessions older than the transcript of record
  checkpoint?: string; // user entries: the checkpoint taken before that prompt (agent/rewind)
  attachments?: string[]; // user entries: what was attached, by name
  compaction?: CompactionMark; // kind "compaction"
  level?: "info" | "warn" | "error"; // kind "note"
}

export interface CompactionMark {
  tokensBefore: number;
  tokensAfter: number;
  reason: "auto" | "manual";
  summary: string; // the summary message as the model saw it after the compaction
}

/** How an approval was decided: "" nothing was asked; auto/refused: by the settings or an earlier Always. */
export type ToolApproval = "" | "approved" | "always" | "rejected" | "auto" | "refused";

/** A `task` card's subagent as the transcript of record keeps it. */
export interface SubagentMark {
  name: string;
  model: string;
  fork: boolean;
  steps: SubagentStepMark[]; // the last 100
  isError: boolean;
  requests: number;
  tokens: number;
  usd: number;
  transcript: string;
}

export interface SubagentStepMark {
  tool: string;
  summary: string;
  isError: boolean;
}

export interface TranscriptTool {
  id: string;
  name: string;
  summary: string;
  isError: boolean;
  resultChars: number;
  marker: ToolMarker; // the card's badge, as it was last live
  input: Record<string, unknown> | null;
  diff: string; // write/edit: the change as approved (unified, 3 lines of context, the file's line numbers)
  approval: ToolApproval;
  reason: string; // the user's words when they rejected it
  done: boolean; // false: the tool never returned
  subagent?: SubagentMark | null; // a `task` call: its subagent (absent from an older server)
}

// ------------------------------------------------------------- Checkpoints

export type FileChangeKind = "added" | "modified" | "deleted";
export type RestoreWhat = "code" | "conversation" | "both";

export interface CheckpointsResult {
  checkpoints: CheckpointInfo[];
}

export interface CheckpointInfo {
  id: string; // a turn's checkpoint has the turn's id
  prompt: string;
  at: number;
  kind: "turn" | "rewind";
  files: CheckpointFile[];
  skipped: SkippedFile[];
  rewound: boolean; // a later rewind took these changes back
}

export interface CheckpointFile {
  path: string;
  change: FileChangeKind;
}

export interface SkippedFile {
  path: string;
  change: FileChangeKind;
  reason: string;
}

export interface CheckpointDiffParams {
  checkpoint: string;
}

export interface CheckpointDiffResult {
  checkpoint: string;
  files: CheckpointFileDiff[];
  skipped: SkippedFile[];
}

export interface CheckpointFileDiff {
  path: string;
  change: FileChangeKind; // what restoring does to the file as it is now
  diff: string; // unified, from now to the checkpoint
  conflict: boolean; // changed outside the agent
}

export interface RewindParams {
  checkpoint: string;
  restore: RestoreWhat;
  overwrite?: string[]; // conflicting paths the user already agreed to overwrite (not asked again)
}

export interface RewindResult {
  checkpoint: string;
  undo: string | null;
  restored: string[];
  conflicts: string[];
  skipped: SkippedFile[];
  conversation: boolean;
  cancelled: boolean;
  transcript?: TranscriptEntry[];
  todos: Todo[]; // the task list after the rewind
  checkpoints: CheckpointInfo[]; // the list after the rewind (rewound marks, undo)
}

export interface ForkParams {
  checkpoint: string;
}

export interface ForkResult {
  sessionId: string;
  transcript: TranscriptEntry[];
}

export interface RenameSessionParams {
  sessionId: string;
  title: string;
}

export interface DeleteSessionParams {
  sessionId: string;
}

export type ContextLevel = "ok" | "warn" | "high";

export interface ContextCategories {
  system: number;
  tools: number;
  instructions: number; // instruction files (AGENTS.md…) in the system prompt
  user: number;
  assistant: number;
  toolResults: number;
}

/** one per layer: truncate, budget, snip, clear, clearInputs, clearProse, microcompact, fold, supersede, clearTextResults, compact */
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

/** what preparing the next request will do about its size (docs/protocol.md, Utilization) */
export type NextRequest = "none" | "compact" | "trim" | "tooLarge";

export interface ContextResult {
  model: string;
  demo: boolean;
  /** the model's own window; `window` is the working window */
  modelWindow: number | null;
  window: number;
  effectiveWindow: number;
  used: number;
  utilization: number;
  level: ContextLevel;
  nextRequest: NextRequest;
  autoCompactAt: number | null; // utilization at which a summary replaces older turns; null: off
  categories: ContextCategories;
  layers: LayerStat[];
  placeholders: Placeholder[];
  mcpTools: McpToolTokens[]; // per MCP server: tools offered and their definitions' tokens per request
  toolListChanges: number; // requests whose tool list changed (each one cache break)
  instructions: InstructionFile[]; // the instruction files in the system prompt
  instructionChanges: number; // requests whose instruction files changed (each one cache break)
  warnings: string[]; // what to act on: an MCP server whose tool definitions take over 10% of `window`
  cache?: CacheReport; // as in CostResult: the last misses and the thinking the API dropped
  toolSearch?: ToolSearch; // the MCP tools offered vs deferred (README "Tool search"); absent without MCP tools
}

/** How the MCP tools reach the model (agent/mcp/tool_search.py). */
export interface ToolSearch {
  mode: "native" | "builtin" | "upfront"; // Anthropic's tool search tool, agentls' search_tools, or every schema sent
  offered: number; // MCP tools whose schemas every request carries (builtin: the ones search_tools loaded)
  deferred: number; // MCP tools whose schemas are left out until a search finds them
  loaded: number; // builtin: tools search_tools has loaded in this conversation
  savedTokens: number; // the deferred schemas' tokens each request does not carry
}

export interface InstructionFile {
  name: string; // "AGENTS.md", "src/AGENTS.md", "~user/AGENTS.md"
  scope: "user" | "root" | "nested";
  tokens: number;
  chars: number; // the whole file
  cut: boolean; // over the cap: only its beginning is in the prompt
}

/** tokens: part of categories.tools */
export interface McpToolTokens {
  server: string;
  tools: number;
  tokens: number;
}

/** default connect: true (first start the servers not running, failed ones again) */
export interface McpServersParams {
  connect?: boolean;
}

export interface McpServersResult {
  servers: McpServerStatus[];
  toolListChanges: number;
}

export type McpServerState = "idle" | "starting" | "running" | "failed" | "stopped" | "disabled";

export interface McpServerStatus {
  name: string;
  transport: "stdio" | "http";
  target: string; // the command line or the URL (never env or header values)
  state: McpServerState;
  error: string; // "" when none
  envKeys: string[]; // names only
  headerKeys: string[];
  tools: McpToolStatus[];
}

export interface McpToolStatus {
  name: string;
  qualifiedName: string; // "" when not offered (never)
  approval: ApprovalMode;
  description: string;
}

// ---------------------------------------------------------- Server → client

export type ToolMarker = "" | "truncated" | "budgeted" | "snipped" | "cleared" | "folded";

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
      approval: ToolApproval;
      diff: string;
      reason: string;
    }
  | { turnId: string; kind: "usage"; usage: Usage }
  | { turnId: string; kind: "compactionStarted"; reason: "auto" | "manual" }
  | {
      turnId: string;
      kind: "compactionFinished";
      tokensBefore: number;
      tokensAfter: number;
      summary: string;
      reason: "auto" | "manual";
      compacted: boolean;
    }
  | { turnId: string; kind: "layer"; layer: string; toolUseIds: string[]; marker: string }
  | { turnId: string; kind: "retry"; attempt: number; delaySeconds: number; reason: string; discardPartial: boolean }
  | { turnId: string; kind: "toolsChanged"; changes: number; added: string[]; removed: string[]; delivery?: "head" | "appended" | "held" }  // absent from an older server
  | { turnId: string; kind: "checkpoint"; checkpoint: string; files: CheckpointFile[]; skipped: SkippedFile[] }
  | { turnId: string; kind: "instructionsChanged"; changes: number; added: string[]; removed: string[]; changed: string[]; delivery?: "head" | "appended" }
  | { turnId: string; kind: "todos"; todos: Todo[] }
  | { turnId: string; kind: "thinkingDropped"; text: string; path: string; toolUseIds: string[]; retried: boolean; blocks: number }
  | { turnId: string; kind: "error"; message: string }
  | { turnId: string; kind: "subagentStarted"; toolUseId: string; name: string; model: string; fork: boolean; tools: string[] }
  | { turnId: string; kind: "subagentStep"; toolUseId: string; step: SubagentStepEvent }
  | {
      turnId: string;
      kind: "subagentFinished";
      toolUseId: string;
      name: string;
      isError: boolean;
      usage: Usage;
      requests: number;
      usd: number;
      transcript: string;
    };

/** A subagent's own event inside its card: an AgentEvent without turnId (textDelta, toolStart, toolEnd, retry, usage, error, compaction…, todos, thinkingDropped). */
export type SubagentStepEvent = DistributiveOmit<AgentEvent, "turnId">;
type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

export type AgentEventKind = AgentEvent["kind"];

export interface ContextUsage {
  model: string;
  demo: boolean;
  /** the model's own window; `window` is the working window */
  modelWindow: number | null;
  used: number;
  window: number;
  effectiveWindow: number;
  utilization: number;
  level: ContextLevel;
  categories: ContextCategories;
  layers: LayerStat[];
  nextRequest: NextRequest;
  autoCompactAt: number | null;
}

export type ConfirmKind = "shell" | "write" | "edit" | "mcp" | "rewind" | "rules";

export interface ConfirmParams {
  kind: ConfirmKind;
  command?: string;
  path?: string;
  diff?: string;
  server?: string; // mcp
  tool?: string; // mcp: the server's own tool name
  input?: string; // mcp: the arguments as JSON
  checkpoint?: string; // rewind
  paths?: string[]; // rewind: files changed outside the agent it would overwrite
  rules?: string[]; // the allow rules "Always" (remember) adds; absent: none can be made
  toolUseId?: string; // the tool call asking: the panel asks on its card
  subagent?: string; // a subagent asks (its description): toolUseId is then its `task` call
}

/** remember: "Always" (adds the request's rules); reason: told to the model with a refusal */
export interface ConfirmResult {
  approved: boolean;
  remember?: boolean;
  reason?: string;
}

export type EditorQueryKind = "diagnostics" | "symbols" | "definition" | "references" | "hover";

export type DiagnosticSeverityName = "error" | "warning" | "information" | "hint";

export interface EditorQueryParams {
  kind: EditorQueryKind;
  uri?: string; // diagnostics: one file (absent: every file); symbols: that outline (absent: workspace symbols)
  position?: Position; // definition/references/hover: on the symbol's name (UTF-16)
  query?: string; // symbols: the name to look for
  severity?: DiagnosticSeverityName; // diagnostics: this severity or worse
  changedSince?: number; // diagnostics of a uri: answer once its generation is above this…
  waitMs?: number; // …and a quiet moment passed, or after waitMs at most
}

export interface EditorQueryResult {
  diagnostics?: EditorDiagnostic[];
  generation?: number; // diagnostics of a uri: counts the changes of that file's diagnostics
  symbols?: EditorSymbol[];
  locations?: Location[];
  hover?: string;
}

/** severity: 1 error, 2 warning, 3 information, 4 hint (LSP numbers) */
export interface EditorDiagnostic {
  uri: string;
  range: Range;
  severity: number;
  message: string;
  source?: string;
  code?: string | number;
}

/** kind: LSP SymbolKind name ("Class", "Function", …) */
export interface EditorSymbol {
  name: string;
  kind: string;
  uri: string;
  range: Range;
  containerName?: string;
}

export interface Location {
  uri: string;
  range: Range;
}

// ------------------------------------------------------------------ Errors

export const ErrorCodes = {
  InvalidParams: -32602,
  InternalError: -32603,
  TurnRunning: -32002,
  RequestCancelled: -32800,
} as const;
