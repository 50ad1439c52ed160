"""The wire protocol of the language server, in one place: method names and the shapes on the wire.

docs/protocol.md is the reference; client-vscode/src/protocol.ts mirrors it for
the extension, and this module for the server (tests/lsp/test_protocol_doc.py
checks every TypedDict here against the doc, field for field). The core
(context/, model/, agent/) speaks plain dataclasses with snake_case fields;
the functions below are the only place they become camelCase JSON, and the
only place JSON from a client becomes core objects again (the terminal chat
client reads the server's answers through the `*_from_wire` functions).
"""

from __future__ import annotations

import time
from dataclasses import fields, is_dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from ..agent import events as ev
from ..agent.approval import ApprovalDecision, ApprovalRequest
from ..agent.checkpoints.model import ChangedFile, Checkpoint, FileDiff, RewindResult, Skipped
from ..agent.commands import CustomCommand
from ..agent.conversations import Rewound
from ..agent.permissions import Rule
from ..agent.mcp.status import McpServerStatus, McpToolStatus, McpToolTokens
from ..agent.runtime import ActiveModel
from ..agent.sent import ToolResultView
from ..agent.editor_queries import EditorQuery
from ..agent.endpoint_models import ModelOffer, ModelsView
from ..agent.todos import TodoItem
from ..agent.transcript import CompactionMark, TranscriptEntry, TranscriptTool
from ..agent.views import ContextDetails, InstructionFileView
from ..context.attachments import Attachment
from ..context.images import ImageAttachment
from ..context.pipeline import CompactionResult
from ..context.report import Categories, ContextReport, LayerFigure, Placeholder
from ..context.usage import Usage
from ..model.catalog import ModelInfo as CatalogModel
from ..model.pricing import CostReport, Price

if TYPE_CHECKING:  # the store (sqlite3) loads with the agent, after initialize is answered
    from ..agent.store.sessions import SessionInfo

# ---------------------------------------------------------------- method names

CHAT = "agent/chat"
COMPACT = "agent/compact"
COST = "agent/cost"
MODELS = "agent/models"
TOOL_RESULT = "agent/toolResult"
CLEAR = "agent/clear"
SESSIONS = "agent/sessions"
NEW_SESSION = "agent/newSession"
RESUME = "agent/resume"
RENAME_SESSION = "agent/renameSession"
DELETE_SESSION = "agent/deleteSession"
CONTEXT = "agent/context"
MCP_SERVERS = "agent/mcpServers"
CHECKPOINTS = "agent/checkpoints"
CHECKPOINT_DIFF = "agent/checkpointDiff"
REWIND = "agent/rewind"
FORK = "agent/fork"
TODOS = "agent/todos"
COMMANDS = "agent/commands"
EXPAND_COMMAND = "agent/expandCommand"
PERMISSIONS = "agent/permissions"
# server → client
EVENT = "agent/event"
CONTEXT_USAGE = "agent/contextUsage"
CONFIRM = "agent/confirm"
EDITOR_QUERY = "agent/editorQuery"
SETTINGS_SECTION = "agentls"  # didChangeConfiguration: {"agentls": AgentSettings}

REQUESTS = (CHAT, COMPACT, COST, MODELS, TOOL_RESULT, CLEAR, SESSIONS, NEW_SESSION, RESUME, RENAME_SESSION,
            DELETE_SESSION, CONTEXT, MCP_SERVERS, CHECKPOINTS, CHECKPOINT_DIFF, REWIND, FORK, TODOS, COMMANDS,
            EXPAND_COMMAND, PERMISSIONS)


# ---------------------------------------------------------------- shapes (docs/protocol.md)

class UsageWire(TypedDict):
    inputTokens: int
    outputTokens: int
    cacheReadTokens: int
    cacheWriteTokens: int


class ChatResult(TypedDict):
    turnId: str
    text: str
    stopReason: str
    usage: UsageWire


class CompactResult(TypedDict):
    tokensBefore: int
    tokensAfter: int
    summary: str
    compacted: bool
    note: str


class CostResult(TypedDict):
    model: str
    requests: int
    inputTokens: int
    outputTokens: int
    cacheReadTokens: int
    cacheWriteTokens: int
    cacheWrite1hTokens: int
    cacheTtl: str
    usd: float
    unpricedModels: list[str]


class ToolResult(TypedDict):
    toolUseId: str
    tool: str
    input: dict[str, Any]
    isError: bool
    text: str
    sent: bool
    marker: str
    layer: str
    rewrittenAt: str
    ref: str
    originalChars: int
    original: str | None


class SessionInfoWire(TypedDict):
    id: str
    title: str
    workspace: str
    created: float
    updated: float
    turns: int
    tokens: int
    costUsd: float
    inUse: bool
    current: bool


class SessionsResult(TypedDict):
    sessions: list[SessionInfoWire]
    current: str | None


class NewSessionResult(TypedDict):
    sessionId: str


class TranscriptToolWire(TypedDict):
    id: str
    name: str
    summary: str
    isError: bool
    resultChars: int
    marker: str
    input: dict[str, Any] | None
    diff: str
    approval: str
    reason: str
    done: bool


class CompactionMarkWire(TypedDict):
    tokensBefore: int
    tokensAfter: int
    reason: str
    summary: str


class _TranscriptEntryBase(TypedDict):
    kind: str
    role: str
    text: str
    tools: list[TranscriptToolWire]
    turnId: str


class TranscriptEntryWire(_TranscriptEntryBase, total=False):
    checkpoint: str  # user entries: the checkpoint taken before that prompt
    attachments: list[str]  # user entries
    compaction: CompactionMarkWire  # kind "compaction"
    level: str  # kind "note"


class ResumeResult(TypedDict):
    sessionId: str
    transcript: list[TranscriptEntryWire]


class CategoriesWire(TypedDict):
    system: int
    tools: int
    instructions: int
    user: int
    assistant: int
    toolResults: int


class LayerStat(TypedDict):
    layer: str
    count: int
    tokensSaved: int


class PlaceholderWire(TypedDict):
    toolUseId: str
    tool: str
    layer: str
    ref: str
    originalChars: int


class McpToolTokensWire(TypedDict):
    server: str
    tools: int
    tokens: int


class ContextUsageWire(TypedDict):
    used: int
    window: int
    effectiveWindow: int
    utilization: float
    level: str
    categories: CategoriesWire
    layers: list[LayerStat]
    nextRequest: str
    autoCompactAt: float | None
    model: str
    demo: bool
    modelWindow: int | None


class InstructionFileWire(TypedDict):
    name: str
    scope: str
    tokens: int
    chars: int
    cut: bool


class ContextResult(ContextUsageWire):
    placeholders: list[PlaceholderWire]
    mcpTools: list[McpToolTokensWire]
    toolListChanges: int
    instructions: list[InstructionFileWire]
    instructionChanges: int
    warnings: list[str]


class TodoWire(TypedDict):
    content: str
    status: str


class TodosResult(TypedDict):
    todos: list[TodoWire]


class CommandInfo(TypedDict):
    name: str
    description: str
    source: str
    argumentHint: str


class CommandsResult(TypedDict):
    commands: list[CommandInfo]


class ExpandCommandResult(TypedDict):
    prompt: str


class PermissionRuleWire(TypedDict):
    rule: str
    decision: str
    source: str


class PermissionsResult(TypedDict):
    rules: list[PermissionRuleWire]


class McpToolStatusWire(TypedDict):
    name: str
    qualifiedName: str
    approval: str
    description: str


class McpServerStatusWire(TypedDict):
    name: str
    transport: str
    target: str
    state: str
    error: str
    envKeys: list[str]
    headerKeys: list[str]
    tools: list[McpToolStatusWire]


class McpServersResult(TypedDict):
    servers: list[McpServerStatusWire]
    toolListChanges: int


class ModelInfoWire(TypedDict):
    id: str
    label: str
    contextWindow: int | None
    maxOutput: int | None
    createdAt: str
    thinking: str
    efforts: list[str]
    lifecycle: str
    inputPerMTok: float | None
    outputPerMTok: float | None
    cacheReadPerMTok: float | None
    cacheWritePerMTok: float | None


class ModelsResult(TypedDict):
    models: list[ModelInfoWire]
    source: str
    note: str
    current: str
    configured: str
    demo: bool


class CheckpointFile(TypedDict):
    path: str
    change: str


class SkippedFile(TypedDict):
    path: str
    change: str
    reason: str


class CheckpointInfo(TypedDict):
    id: str
    prompt: str
    at: float
    kind: str
    files: list[CheckpointFile]
    skipped: list[SkippedFile]
    rewound: bool


class CheckpointsResult(TypedDict):
    checkpoints: list[CheckpointInfo]


class CheckpointFileDiff(TypedDict):
    path: str
    change: str
    diff: str
    conflict: bool


class CheckpointDiffResult(TypedDict):
    checkpoint: str
    files: list[CheckpointFileDiff]
    skipped: list[SkippedFile]


class _RewindResultBase(TypedDict):
    checkpoint: str
    undo: str | None
    restored: list[str]
    conflicts: list[str]
    skipped: list[SkippedFile]
    conversation: bool
    cancelled: bool
    todos: list[TodoWire]
    checkpoints: list[CheckpointInfo]


class RewindResultWire(_RewindResultBase, total=False):
    transcript: list[TranscriptEntryWire]


class ForkResult(TypedDict):
    sessionId: str
    transcript: list[TranscriptEntryWire]


# Which TypedDict above mirrors which interface of docs/protocol.md (the doc test reads this).
DOC_INTERFACES: dict[str, type] = {
    "Usage": UsageWire, "ChatResult": ChatResult, "CompactResult": CompactResult, "CostResult": CostResult,
    "ToolResult": ToolResult, "SessionInfo": SessionInfoWire, "SessionsResult": SessionsResult,
    "NewSessionResult": NewSessionResult, "TranscriptTool": TranscriptToolWire,
    "TranscriptEntry": TranscriptEntryWire, "CompactionMark": CompactionMarkWire, "ResumeResult": ResumeResult,
    "LayerStat": LayerStat,
    "Placeholder": PlaceholderWire, "McpToolTokens": McpToolTokensWire, "ContextUsage": ContextUsageWire,
    "ContextResult": ContextResult, "McpToolStatus": McpToolStatusWire, "McpServerStatus": McpServerStatusWire,
    "McpServersResult": McpServersResult, "ModelInfo": ModelInfoWire, "ModelsResult": ModelsResult,
    "CheckpointFile": CheckpointFile, "SkippedFile": SkippedFile,
    "CheckpointInfo": CheckpointInfo, "CheckpointsResult": CheckpointsResult, "CheckpointFileDiff": CheckpointFileDiff,
    "CheckpointDiffResult": CheckpointDiffResult, "RewindResult": RewindResultWire, "ForkResult": ForkResult,
    "InstructionFile": InstructionFileWire, "Todo": TodoWire,
    "TodosResult": TodosResult, "CommandInfo": CommandInfo, "CommandsResult": CommandsResult,
    "ExpandCommandResult": ExpandCommandResult, "PermissionRule": PermissionRuleWire,
    "PermissionsResult": PermissionsResult,
}


# ---------------------------------------------------------------- core → wire

def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def usage(value: Usage) -> UsageWire:
    return {"inputTokens": value.input_tokens, "outputTokens": value.output_tokens,
            "cacheReadTokens": value.cache_read_input_tokens, "cacheWriteTokens": value.cache_creation_input_tokens}


def chat_result(turn_id: str, text: str, stop_reason: str, total: Usage) -> ChatResult:
    return {"turnId": turn_id, "text": text, "stopReason": stop_reason, "usage": usage(total)}


def compact_result(result: CompactionResult) -> CompactResult:
    return {"tokensBefore": result.tokens_before, "tokensAfter": result.tokens_after, "summary": result.summary,
            "compacted": result.compacted, "note": result.note}


def cost(report: CostReport) -> CostResult:
    return {"model": report.model, "requests": report.requests,
            "inputTokens": report.usage.input_tokens, "outputTokens": report.usage.output_tokens,
            "cacheReadTokens": report.usage.cache_read_input_tokens,
            "cacheWriteTokens": report.usage.cache_creation_input_tokens,
            "cacheWrite1hTokens": report.usage.cache_write_1h_tokens, "cacheTtl": report.cache_ttl,
            "usd": round(report.usd, 6), "unpricedModels": list(report.unpriced_models)}


def _iso(at: float | None) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at)) if at is not None else ""


def tool_result(view: ToolResultView) -> ToolResult:
    return {"toolUseId": view.tool_use_id, "tool": view.tool, "input": view.input, "isError": view.is_error,
            "text": view.text, "sent": view.sent, "marker": view.marker, "layer": view.layer,
            "rewrittenAt": _iso(view.rewritten_at), "ref": view.ref, "originalChars": view.original_chars,
            "original": view.original}


def session_info(info: SessionInfo, current: str | None) -> SessionInfoWire:
    return {"id": info.id, "title": info.title or "(untitled)", "workspace": info.workspace,
            "created": info.created, "updated": info.updated, "turns": info.turns, "tokens": info.tokens,
            "costUsd": round(info.cost_usd, 6), "inUse": info.in_use and info.id != current,
            "current": info.id == current}


def transcript_tool(tool: TranscriptTool) -> TranscriptToolWire:
    return {"id": tool.id, "name": tool.name, "summary": tool.summary, "isError": tool.is_error,
            "resultChars": tool.result_chars, "marker": tool.marker, "input": tool.input, "diff": tool.diff,
            "approval": tool.approval, "reason": tool.reason, "done": tool.done}


def transcript(entries: list[TranscriptEntry]) -> list[TranscriptEntryWire]:
    """The transcript of record (agent/resume, agent/rewind, agent/fork)."""
    wire: list[TranscriptEntryWire] = []
    for entry in entries:
        item: TranscriptEntryWire = {"kind": entry.kind, "role": entry.role, "text": _with_images(entry),
                                     "tools": [transcript_tool(t) for t in entry.tools], "turnId": entry.turn_id}
        if entry.checkpoint is not None:
            item["checkpoint"] = entry.checkpoint
        if entry.role == "user":
            item["attachments"] = list(entry.attachments)
        if entry.compaction is not None:
            mark = entry.compaction
            item["compaction"] = {"tokensBefore": mark.tokens_before, "tokensAfter": mark.tokens_after,
                                  "reason": mark.reason, "summary": mark.summary}
        if entry.kind == "note":
            item["level"] = entry.level
        wire.append(item)
    return wire


def _with_images(entry: TranscriptEntry) -> str:
    """A prompt's text, its images named before it (the panel shows text; the images stay with the agent)."""
    named = [f"[image: {image.describe()}]" for image in entry.images]
    return "\n".join([*named, entry.text]) if named and entry.text else "\n".join(named) or entry.text


def changed_file(item: ChangedFile) -> CheckpointFile:
    return {"path": item.path, "change": item.change}


def skipped_file(item: Skipped) -> SkippedFile:
    return {"path": item.path, "change": item.change, "reason": item.reason}


def checkpoint_info(item: Checkpoint) -> CheckpointInfo:
    return {"id": item.id, "prompt": item.prompt, "at": item.at, "kind": item.kind,
            "files": [changed_file(f) for f in item.changed_files()],
            "skipped": [skipped_file(s) for s in item.skipped], "rewound": item.rewound}


def checkpoint_diff(checkpoint_id: str, diffs: list[FileDiff], cannot: list[Skipped]) -> CheckpointDiffResult:
    return {"checkpoint": checkpoint_id,
            "files": [{"path": d.path, "change": d.change, "diff": d.diff, "conflict": d.conflict} for d in diffs],
            "skipped": [skipped_file(s) for s in cannot]}


def rewind_result(rewound: Rewound) -> RewindResultWire:
    result = rewound.result
    answer: RewindResultWire = {
        "checkpoint": result.checkpoint, "undo": result.undo, "restored": list(result.restored),
        "conflicts": list(result.conflicts), "skipped": [skipped_file(s) for s in result.cannot],
        "conversation": result.conversation, "cancelled": result.cancelled,
        "todos": [todo(item) for item in rewound.todos],
        "checkpoints": [checkpoint_info(item) for item in rewound.checkpoints]}
    if rewound.transcript is not None:
        answer["transcript"] = transcript(rewound.transcript)
    return answer


def categories(value: Categories) -> CategoriesWire:
    return {"system": value.system, "tools": value.tools, "instructions": value.instructions, "user": value.user,
            "assistant": value.assistant, "toolResults": value.tool_results}


def context_usage(report: ContextReport, model: ActiveModel) -> ContextUsageWire:
    return {"used": report.used, "window": report.window, "effectiveWindow": report.effective_window,
            "utilization": report.utilization, "level": report.level, "categories": categories(report.categories),
            "layers": [{"layer": f.layer, "count": f.count, "tokensSaved": f.tokens_saved} for f in report.layers],
            "nextRequest": report.next_request, "autoCompactAt": report.auto_compact_at, "model": model.model,
            "demo": model.demo, "modelWindow": model.model_window}


def model_offer(model: CatalogModel, price: Price | None) -> ModelInfoWire:
    """One ModelInfo: a price the table does not know is null ("price unknown")."""
    return {"id": model.id, "label": model.label, "contextWindow": model.max_input_tokens,
            "maxOutput": model.max_tokens, "createdAt": model.created_at, "thinking": model.thinking,
            "efforts": list(model.efforts), "lifecycle": model.lifecycle,
            "inputPerMTok": price.input if price else None, "outputPerMTok": price.output if price else None,
            "cacheReadPerMTok": price.cache_read if price else None,
            "cacheWritePerMTok": price.cache_write if price else None}


def models(view: ModelsView) -> ModelsResult:
    return {"models": [model_offer(offer.model, offer.price) for offer in view.offers], "source": view.source,
            "note": view.note, "current": view.current, "configured": view.configured, "demo": view.demo}


def placeholder(item: Placeholder) -> PlaceholderWire:
    return {"toolUseId": item.tool_use_id, "tool": item.tool, "layer": item.layer, "ref": item.ref,
            "originalChars": item.original_chars}


def context(details: ContextDetails, model: ActiveModel) -> ContextResult:
    usage_part = context_usage(details.report, model)
    return {**usage_part, "placeholders": [placeholder(p) for p in details.placeholders],
            "mcpTools": [{"server": t.server, "tools": t.tools, "tokens": t.tokens} for t in details.mcp_tools],
            "toolListChanges": details.tool_list_changes,
            "instructions": [instruction_file(item) for item in details.instructions],
            "instructionChanges": details.instruction_changes, "warnings": list(details.warnings)}


def instruction_file(item: InstructionFileView) -> InstructionFileWire:
    return {"name": item.name, "scope": item.scope, "tokens": item.tokens, "chars": item.chars, "cut": item.cut}


def todo(item: TodoItem) -> TodoWire:
    return {"content": item.content, "status": item.status}


def todos(items: tuple[TodoItem, ...] | list[TodoItem]) -> TodosResult:
    return {"todos": [todo(item) for item in items]}


def commands(found: list[CustomCommand]) -> CommandsResult:
    return {"commands": [{"name": c.name, "description": c.description, "source": c.source,
                          "argumentHint": c.argument_hint} for c in found]}


def permissions(rules: list[Rule]) -> PermissionsResult:
    return {"rules": [{"rule": r.text, "decision": r.decision, "source": r.source} for r in rules]}


def mcp_server(status: McpServerStatus, scrub: Any = None) -> McpServerStatusWire:
    error = scrub(status.error) if scrub is not None else status.error
    return {"name": status.name, "transport": status.transport, "target": status.target, "state": status.state,
            "error": error, "envKeys": list(status.env_keys), "headerKeys": list(status.header_keys),
            "tools": [{"name": t.name, "qualifiedName": t.qualified_name, "approval": t.approval,
                       "description": t.description} for t in status.tools]}


# Events: the `kind` on the wire of each core event; its fields in camelCase, every field present.
EVENT_KINDS: dict[type[ev.AgentEvent], str] = {
    ev.TextDelta: "textDelta", ev.ThinkingDelta: "thinkingDelta", ev.ToolStart: "toolStart",
    ev.ToolEnd: "toolEnd", ev.UsageEvent: "usage", ev.CompactionStarted: "compactionStarted",
    ev.CompactionFinished: "compactionFinished", ev.LayerApplied: "layer", ev.RetryEvent: "retry",
    ev.ToolsChanged: "toolsChanged", ev.CheckpointTaken: "checkpoint", ev.ErrorEvent: "error",
    ev.InstructionsChanged: "instructionsChanged", ev.TodosChanged: "todos",
}
_EVENT_BY_KIND = {kind: cls for cls, kind in EVENT_KINDS.items()}


def event(item: ev.AgentEvent, turn_id: str) -> dict[str, Any]:
    """The `agent/event` payload of a turn's event (ContextUsage is a notification of its own)."""
    data: dict[str, Any] = {"turnId": turn_id, "kind": EVENT_KINDS[type(item)]}
    for f in fields(item):
        data[_camel(f.name)] = _value(getattr(item, f.name))  # TodosChanged.todos: Todo objects
    return data


def _value(value: Any) -> Any:
    """An event field on the wire: Usage in its protocol shape, plain dataclasses as camelCase objects."""
    if isinstance(value, Usage):
        return usage(value)
    if is_dataclass(value) and not isinstance(value, type):
        return {_camel(f.name): _value(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, (list, tuple)):
        return [_value(v) for v in value]
    return value


def confirm_params(request: ApprovalRequest) -> dict[str, Any]:
    """ConfirmParams: kind, plus command (shell), path and diff (write/edit), server, tool and input (mcp) or
    checkpoint, diff and paths (rewind); rules when "Always" would add some."""
    params: dict[str, Any] = {"kind": request.kind}
    for name in ("command", "path", "diff", "server", "tool", "input", "checkpoint"):
        value = getattr(request, name)
        if value is not None:
            params[name] = value
    if request.paths is not None:
        params["paths"] = list(request.paths)
    if request.rules:
        params["rules"] = list(request.rules)
    if request.tool_use_id is not None:
        params["toolUseId"] = request.tool_use_id
    return params


def editor_query_params(query: EditorQuery) -> dict[str, Any]:
    """EditorQueryParams: only the fields that apply to its kind."""
    params: dict[str, Any] = {"kind": query.kind}
    if query.uri is not None:
        params["uri"] = query.uri
    if query.line is not None and query.character is not None:
        params["position"] = {"line": query.line, "character": query.character}
    if query.query is not None:
        params["query"] = query.query
    if query.severity is not None:
        params["severity"] = query.severity
    if query.changed_since is not None:
        params["changedSince"] = query.changed_since
    if query.wait_ms:
        params["waitMs"] = query.wait_ms
    return params


def initialization_options(supports_confirm: bool, settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a terminal client declares at initialize (the extension builds its own in TypeScript)."""
    options: dict[str, Any] = {"supportsConfirm": supports_confirm}
    if settings is not None:
        options["settings"] = settings
    return options


def resume_params(session_id: str) -> dict[str, str]:
    return {"sessionId": session_id}


def rewind_params(checkpoint_id: str, restore: str) -> dict[str, str]:
    return {"checkpoint": checkpoint_id, "restore": restore}


def confirm_result(approved: bool, remember: bool, reason: str = "") -> dict[str, Any]:
    answer: dict[str, Any] = {"approved": approved, "remember": remember}
    if reason:
        answer["reason"] = reason
    return answer


# ---------------------------------------------------------------- wire → core (clients of this protocol)

def confirm_decision(answer: Any) -> ApprovalDecision | None:
    """A ConfirmResult; None when the answer is not one (the caller counts that as a refusal)."""
    if isinstance(answer, dict) and isinstance(answer.get("approved"), bool):
        reason = answer.get("reason")
        return ApprovalDecision(answer["approved"], answer.get("remember") is True,
                                reason[:2000] if isinstance(reason, str) else "")
    return None


def approval_request_from_wire(params: dict[str, Any]) -> ApprovalRequest:
    kind = params.get("kind")
    texts = {name: str(params[name]) for name in ("command", "path", "diff", "server", "tool", "input", "checkpoint")
             if params.get(name) is not None}
    paths, rules, tool_use_id = params.get("paths"), params.get("rules"), params.get("toolUseId")
    return ApprovalRequest(kind if kind in ("shell", "write", "edit", "mcp", "rewind") else "shell", **texts,
                           paths=tuple(str(p) for p in paths) if isinstance(paths, list) else None,
                           rules=tuple(str(r) for r in rules) if isinstance(rules, list) else (),
                           tool_use_id=tool_use_id if isinstance(tool_use_id, str) else None)

def attachment(item: dict[str, Any]) -> Attachment | ImageAttachment:
    """A checked ChatParams attachment (lsp/methods/chat.py checks and resolves it first)."""
    if isinstance(item.get("image"), ImageAttachment):
        return item["image"]
    where = item.get("range")
    lines = (where["start"]["line"] + 1, where["end"]["line"] + 1) if where else None
    return Attachment(str(item.get("uri", "")), str(item.get("text") or ""), lines)


def usage_from_wire(data: dict[str, Any]) -> Usage:
    return Usage(input_tokens=int(data.get("inputTokens", 0)), output_tokens=int(data.get("outputTokens", 0)),
                 cache_creation_input_tokens=int(data.get("cacheWriteTokens", 0)),
                 cache_read_input_tokens=int(data.get("cacheReadTokens", 0)))


def event_from_wire(data: dict[str, Any]) -> ev.AgentEvent | None:
    """The core event an `agent/event` payload stands for; None for a kind this version does not know."""
    cls = _EVENT_BY_KIND.get(str(data.get("kind")))
    if cls is None:
        return None
    values: dict[str, Any] = {}
    for f in fields(cls):
        key = _camel(f.name)
        if key in data:
            values[f.name] = usage_from_wire(data[key]) if cls is ev.UsageEvent else data[key]
    if cls is ev.TodosChanged:
        values["todos"] = todos_from_wire(data.get("todos"))
    try:
        if cls is ev.CheckpointTaken:
            values["files"] = tuple(ChangedFile(str(f.get("path", "")), f.get("change", "modified"))
                                    for f in values.get("files") or [])
            values["skipped"] = tuple(Skipped(str(s.get("path", "")), s.get("change", "modified"),
                                              str(s.get("reason", ""))) for s in values.get("skipped") or [])
        return cls(**values)
    except (TypeError, AttributeError):  # a field missing or of another shape: not an event we can show
        return None


def context_report_from_wire(data: dict[str, Any]) -> ContextReport:
    cats = data.get("categories") or {}
    return ContextReport(
        window=int(data.get("window", 0)), effective_window=int(data.get("effectiveWindow", 0)),
        used=int(data.get("used", 0)), utilization=float(data.get("utilization", 0.0)),
        level=str(data.get("level", "ok")),
        categories=Categories(system=cats.get("system", 0), tools=cats.get("tools", 0),
                              instructions=cats.get("instructions", 0), user=cats.get("user", 0),
                              assistant=cats.get("assistant", 0), tool_results=cats.get("toolResults", 0)),
        layers=tuple(LayerFigure(str(f.get("layer", "")), int(f.get("count", 0)), int(f.get("tokensSaved", 0)))
                     for f in data.get("layers") or []),
        next_request=str(data.get("nextRequest", "none")),
        auto_compact_at=float(data["autoCompactAt"]) if isinstance(data.get("autoCompactAt"), (int, float)) else None)


def model_info_from_wire(data: dict[str, Any]) -> ActiveModel:
    window = data.get("modelWindow")
    return ActiveModel(str(data.get("model", "")), bool(data.get("demo", False)),
                       window if isinstance(window, int) else None)


def models_from_wire(data: dict[str, Any]) -> ModelsView:
    offers = []
    for item in data.get("models") or []:
        thinking = {"adaptive": ("adaptive",), "manual": ("enabled",)}.get(str(item.get("thinking")), ())
        model = CatalogModel(str(item.get("id", "")), str(item.get("label", "")), str(item.get("createdAt", "")),
                             item.get("contextWindow"), item.get("maxOutput"), frozenset(thinking),
                             tuple(item.get("efforts") or ()), lifecycle=str(item.get("lifecycle", "active")))
        prices = [item.get(k) for k in ("inputPerMTok", "outputPerMTok", "cacheWritePerMTok", "cacheReadPerMTok")]
        per_input, per_output, per_write, per_read = prices
        price = (Price(float(per_input), float(per_output), float(per_write), float(per_read))
                 if all(isinstance(p, (int, float)) for p in prices) else None)
        offers.append(ModelOffer(model, price))
    return ModelsView(tuple(offers), str(data.get("source", "")), str(data.get("note", "")),
                      str(data.get("current", "")), str(data.get("configured", "")), bool(data.get("demo")))


def context_from_wire(data: dict[str, Any]) -> ContextDetails:
    return ContextDetails(
        context_report_from_wire(data),
        tuple(Placeholder(p.get("toolUseId", ""), p.get("tool", ""), p.get("layer", ""), p.get("ref", ""),
                          int(p.get("originalChars", 0))) for p in data.get("placeholders") or []),
        tuple(McpToolTokens(t.get("server", ""), int(t.get("tools", 0)), int(t.get("tokens", 0)))
              for t in data.get("mcpTools") or []),
        int(data.get("toolListChanges", 0)),
        tuple(InstructionFileView(str(f.get("name", "")), str(f.get("scope", "")), int(f.get("tokens", 0)),
                                  int(f.get("chars", 0)), bool(f.get("cut", False)))
              for f in data.get("instructions") or []),
        int(data.get("instructionChanges", 0)),
        tuple(str(w) for w in data.get("warnings") or []))


def todos_from_wire(items: Any) -> list[TodoItem]:
    return [TodoItem(str(t.get("content", "")), str(t.get("status", "pending")))
            for t in items or [] if isinstance(t, dict)]


def commands_from_wire(items: Any) -> list[CustomCommand]:
    from pathlib import Path

    return [CustomCommand(str(c.get("name", "")), str(c.get("description", "")), str(c.get("source", "")),
                          Path(), str(c.get("argumentHint", ""))) for c in items or [] if isinstance(c, dict)]


def permissions_from_wire(items: Any) -> list[Rule]:
    return [Rule(str(r.get("decision", "allow")), str(r.get("rule", "")), None, str(r.get("source", "")))  # type: ignore[arg-type]
            for r in items or [] if isinstance(r, dict)]


def cost_from_wire(data: dict[str, Any]) -> CostReport:
    total = Usage(int(data.get("inputTokens", 0)), int(data.get("outputTokens", 0)),
                  int(data.get("cacheWriteTokens", 0)), int(data.get("cacheReadTokens", 0)),
                  int(data.get("cacheWrite1hTokens", 0)))
    return CostReport(str(data.get("model", "")), int(data.get("requests", 0)), total, float(data.get("usd", 0.0)),
                      str(data.get("cacheTtl", "5m")), tuple(data.get("unpricedModels") or ()))


def compaction_from_wire(data: dict[str, Any]) -> CompactionResult:
    return CompactionResult(int(data.get("tokensBefore", 0)), int(data.get("tokensAfter", 0)),
                            str(data.get("summary", "")), "manual", compacted=bool(data.get("compacted", True)),
                            note=str(data.get("note", "")))


def session_from_wire(data: dict[str, Any]) -> tuple[SessionInfo, bool]:
    """(the session, whether it is the window's current one)."""
    from ..agent.store.sessions import SessionInfo

    info = SessionInfo(id=str(data.get("id", "")), workspace=str(data.get("workspace", "")),
                       title=str(data.get("title", "")), created=float(data.get("created", 0)),
                       updated=float(data.get("updated", 0)), turns=int(data.get("turns", 0)),
                       tokens=int(data.get("tokens", 0)), cost_usd=float(data.get("costUsd", 0.0)),
                       in_use=bool(data.get("inUse", False)))
    return info, bool(data.get("current", False))


def _tool_from_wire(t: dict[str, Any]) -> TranscriptTool:
    return TranscriptTool(str(t.get("id", "")), str(t.get("name", "")), str(t.get("summary", "")),
                          bool(t.get("isError", False)), int(t.get("resultChars", 0)), str(t.get("marker", "")),
                          t.get("input") if isinstance(t.get("input"), dict) else None, str(t.get("diff", "")),
                          str(t.get("approval", "")), str(t.get("reason", "")), t.get("done") is not False)


def transcript_from_wire(entries: list[dict[str, Any]]) -> list[TranscriptEntry]:
    found = []
    for e in entries:
        mark = e.get("compaction") if isinstance(e.get("compaction"), dict) else None
        found.append(TranscriptEntry(
            str(e.get("role", "")), str(e.get("text", "")), [_tool_from_wire(t) for t in e.get("tools") or []],
            e.get("checkpoint") if isinstance(e.get("checkpoint"), str) else None, str(e.get("kind", "message")),
            [str(a) for a in e.get("attachments") or []], str(e.get("turnId", "")),
            CompactionMark(int(mark.get("tokensBefore", 0)), int(mark.get("tokensAfter", 0)),
                           str(mark.get("reason", "auto")), str(mark.get("summary", ""))) if mark else None,
            str(e.get("level", ""))))
    return found


def skipped_from_wire(item: dict[str, Any]) -> Skipped:
    return Skipped(str(item.get("path", "")), item.get("change", "modified"), str(item.get("reason", "")))


def checkpoint_from_wire(item: dict[str, Any]) -> Checkpoint:
    """A listed checkpoint as a terminal shows it (its files' content hashes stay with the server)."""
    from ..agent.checkpoints.model import FileChange

    files = [FileChange(str(f.get("path", "")), None if f.get("change") == "added" else "",
                        None if f.get("change") == "deleted" else "") for f in item.get("files") or []]
    return Checkpoint(str(item.get("id", "")), str(item.get("prompt", "")), float(item.get("at", 0)), 0,
                      "rewind" if item.get("kind") == "rewind" else "turn", files,
                      [skipped_from_wire(s) for s in item.get("skipped") or []], rewound=bool(item.get("rewound")))


def rewind_from_wire(item: dict[str, Any]) -> RewindResult:
    return RewindResult(str(item.get("checkpoint", "")), item.get("undo"), list(item.get("restored") or []),
                        list(item.get("conflicts") or []), [skipped_from_wire(s) for s in item.get("skipped") or []],
                        bool(item.get("conversation")), bool(item.get("cancelled")))


def mcp_servers_from_wire(servers: list[dict[str, Any]]) -> list[McpServerStatus]:
    return [McpServerStatus(str(s.get("name", "")), str(s.get("transport", "")), str(s.get("target", "")),
                            str(s.get("state", "")), str(s.get("error", "")), tuple(s.get("envKeys") or ()),
                            tuple(s.get("headerKeys") or ()),
                            tuple(McpToolStatus(str(t.get("name", "")), str(t.get("qualifiedName", "")),
                                                str(t.get("approval", "")), str(t.get("description", "")))
                                  for t in s.get("tools") or []))
            for s in servers]
