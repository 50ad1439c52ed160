"""The language server's wire: its method names, each method's result, and the function that builds each.

docs/protocol.md is the reference; client-vscode/src/protocol.ts mirrors it for
the extension, and this module with shapes.py (the objects results nest) for
the server: tests/lsp/test_protocol_doc.py checks every TypedDict against the
doc, field for field. The core speaks plain dataclasses with snake_case
fields; the functions below turn them into camelCase JSON through the one
converter (converter.py) and read what a client sends back. The terminal
chat client reads the server's answers in cli/lsp_wire.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypedDict, cast

from ..agent import events as ev
from ..agent.cache_report import CacheReport
from ..agent.approval import ApprovalDecision, ApprovalRequest
from ..agent.checkpoints.model import Checkpoint, FileDiff, Skipped
from ..agent.commands import CustomCommand
from ..agent.conversations import Rewound
from ..agent.editor_queries import EditorQuery
from ..agent.endpoint_models import ModelsView
from ..agent.mcp.status import McpServerStatus
from ..agent.permissions import Rule
from ..agent.runtime import ActiveModel
from ..agent.sent import ToolResultView
from ..agent.todos import TodoItem
from ..agent.transcript import TranscriptEntry
from ..agent.views import ContextDetails
from ..context.attachments import Attachment
from ..context.images import ImageAttachment
from ..context.pipeline import CompactionResult
from ..context.report import ContextReport
from ..context.usage import Usage
from ..model.pricing import CostReport
from . import shapes
from .converter import WIRE

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
MODE = "agent/mode"
# server → client
EVENT = "agent/event"
CONTEXT_USAGE = "agent/contextUsage"
CONFIRM = "agent/confirm"
EDITOR_QUERY = "agent/editorQuery"
SETTINGS_SECTION = "agentls"  # didChangeConfiguration: {"agentls": AgentSettings}

REQUESTS = (CHAT, COMPACT, COST, MODELS, TOOL_RESULT, CLEAR, SESSIONS, NEW_SESSION, RESUME, RENAME_SESSION,
            DELETE_SESSION, CONTEXT, MCP_SERVERS, CHECKPOINTS, CHECKPOINT_DIFF, REWIND, FORK, TODOS, COMMANDS,
            EXPAND_COMMAND, PERMISSIONS, MODE)

# Events: the `kind` on the wire of each core event; its fields in camelCase, every field present.
EVENT_KINDS: dict[type[ev.AgentEvent], str] = {
    ev.TextDelta: "textDelta", ev.ThinkingDelta: "thinkingDelta", ev.ToolStart: "toolStart",
    ev.ToolEnd: "toolEnd", ev.UsageEvent: "usage", ev.CompactionStarted: "compactionStarted",
    ev.CompactionFinished: "compactionFinished", ev.LayerApplied: "layer", ev.RetryEvent: "retry",
    ev.ToolsChanged: "toolsChanged", ev.CheckpointTaken: "checkpoint", ev.ErrorEvent: "error",
    ev.InstructionsChanged: "instructionsChanged", ev.TodosChanged: "todos", ev.ThinkingDropped: "thinkingDropped",
    ev.SubagentStarted: "subagentStarted", ev.SubagentStep: "subagentStep", ev.SubagentFinished: "subagentFinished",
}


# ---------------------------------------------------------------- results (docs/protocol.md)

class ChatResult(TypedDict):
    turnId: str
    text: str
    stopReason: str
    usage: shapes.UsageWire


class CompactResult(TypedDict):
    tokensBefore: int
    tokensAfter: int
    summary: str
    compacted: bool
    note: str


class _CostResultBase(TypedDict):
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
    subagents: list[shapes.SubagentCostWire]


class CostResult(_CostResultBase, total=False):
    cache: shapes.CacheReportWire  # only when there is something to tell (agent/cache_report.py)


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


class SessionsResult(TypedDict):
    sessions: list[shapes.SessionInfoWire]
    current: str | None


class NewSessionResult(TypedDict):
    sessionId: str


class ResumeResult(TypedDict):
    sessionId: str
    transcript: list[shapes.TranscriptEntryWire]


class _ContextResultBase(shapes.ContextUsageWire):
    placeholders: list[shapes.PlaceholderWire]
    mcpTools: list[shapes.McpToolTokensWire]
    toolListChanges: int
    instructions: list[shapes.InstructionFileWire]
    instructionChanges: int
    warnings: list[str]


class ContextResult(_ContextResultBase, total=False):
    cache: shapes.CacheReportWire  # as in CostResult
    toolSearch: shapes.ToolSearchWire  # the MCP tools offered vs deferred


class TodosResult(TypedDict):
    todos: list[shapes.TodoWire]


class ModeResult(TypedDict):
    mode: str  # "act" | "plan" (agent/plan_mode.py)


class CommandsResult(TypedDict):
    commands: list[shapes.CommandInfo]


class ExpandCommandResult(TypedDict):
    prompt: str


class PermissionsResult(TypedDict):
    rules: list[shapes.PermissionRuleWire]


class McpServersResult(TypedDict):
    servers: list[shapes.McpServerStatusWire]
    toolListChanges: int


class ModelsResult(TypedDict):
    models: list[shapes.ModelInfoWire]
    source: str
    note: str
    current: str
    configured: str
    demo: bool


class CheckpointsResult(TypedDict):
    checkpoints: list[shapes.CheckpointInfo]


class CheckpointDiffResult(TypedDict):
    checkpoint: str
    files: list[shapes.CheckpointFileDiff]
    skipped: list[shapes.SkippedFile]


class _RewindResultBase(TypedDict):
    checkpoint: str
    undo: str | None
    restored: list[str]
    conflicts: list[str]
    skipped: list[shapes.SkippedFile]
    conversation: bool
    cancelled: bool
    todos: list[shapes.TodoWire]
    checkpoints: list[shapes.CheckpointInfo]


class RewindResultWire(_RewindResultBase, total=False):
    transcript: list[shapes.TranscriptEntryWire]


class ForkResult(TypedDict):
    sessionId: str
    transcript: list[shapes.TranscriptEntryWire]


# Which TypedDict mirrors which interface of docs/protocol.md (the doc test reads this).
DOC_INTERFACES: dict[str, type] = {
    "Usage": shapes.UsageWire, "ChatResult": ChatResult, "CompactResult": CompactResult, "CostResult": CostResult,
    "ToolResult": ToolResult, "SessionInfo": shapes.SessionInfoWire, "SessionsResult": SessionsResult,
    "NewSessionResult": NewSessionResult, "TranscriptTool": shapes.TranscriptToolWire,
    "TranscriptEntry": shapes.TranscriptEntryWire, "CompactionMark": shapes.CompactionMarkWire,
    "ResumeResult": ResumeResult, "LayerStat": shapes.LayerStat, "Placeholder": shapes.PlaceholderWire,
    "McpToolTokens": shapes.McpToolTokensWire, "ToolSearch": shapes.ToolSearchWire,
    "ContextUsage": shapes.ContextUsageWire,
    "ContextResult": ContextResult, "McpToolStatus": shapes.McpToolStatusWire,
    "McpServerStatus": shapes.McpServerStatusWire, "McpServersResult": McpServersResult,
    "ModelInfo": shapes.ModelInfoWire, "ModelsResult": ModelsResult, "CheckpointFile": shapes.CheckpointFile,
    "SkippedFile": shapes.SkippedFile, "CheckpointInfo": shapes.CheckpointInfo, "CheckpointsResult": CheckpointsResult,
    "CheckpointFileDiff": shapes.CheckpointFileDiff, "CheckpointDiffResult": CheckpointDiffResult,
    "RewindResult": RewindResultWire, "ForkResult": ForkResult, "InstructionFile": shapes.InstructionFileWire,
    "Todo": shapes.TodoWire, "TodosResult": TodosResult, "CommandInfo": shapes.CommandInfo,
    "CommandsResult": CommandsResult, "ExpandCommandResult": ExpandCommandResult,
    "PermissionRule": shapes.PermissionRuleWire, "PermissionsResult": PermissionsResult,
    "CacheReport": shapes.CacheReportWire, "RequestCache": shapes.RequestCacheWire, "CacheMiss": shapes.CacheMissWire,
    "MissTotal": shapes.MissTotalWire, "DropTotal": shapes.DropTotalWire, "ModeResult": ModeResult,
    "SubagentCost": shapes.SubagentCostWire, "SubagentMark": shapes.SubagentMarkWire,
    "SubagentStepMark": shapes.SubagentStepMarkWire,
}


# ---------------------------------------------------------------- core → wire (through the converter)

def usage(value: Usage) -> shapes.UsageWire:
    return WIRE.unstructure(value)


def chat_result(turn_id: str, text: str, stop_reason: str, total: Usage) -> ChatResult:
    return {"turnId": turn_id, "text": text, "stopReason": stop_reason, "usage": usage(total)}


def compact_result(result: CompactionResult) -> CompactResult:
    return WIRE.unstructure(result)


def cost(report: CostReport, cache: CacheReport | None = None) -> CostResult:
    """The costs; `cache` (why the prompt cache missed) only when the agent has something to tell."""
    wire: CostResult = WIRE.unstructure(report)
    if cache is not None:
        wire["cache"] = WIRE.unstructure(cache)
    return wire


def tool_result(view: ToolResultView) -> ToolResult:
    return WIRE.unstructure(view)


def session_info(info: SessionInfo, current: str | None) -> shapes.SessionInfoWire:
    """A listed session as this window sees it: another window's session is in use, its own is current."""
    wire = WIRE.unstructure(info)
    del wire["title"]  # listed second, "(untitled)" when there is none
    return cast(shapes.SessionInfoWire, {
        "id": info.id, "title": info.title or "(untitled)", **wire, "costUsd": round(info.cost_usd, 6),
        "inUse": info.in_use and info.id != current, "current": info.id == current})


def transcript(entries: list[TranscriptEntry]) -> list[shapes.TranscriptEntryWire]:
    """The transcript of record (agent/resume, agent/rewind, agent/fork)."""
    return WIRE.unstructure(list(entries))


def checkpoint_info(item: Checkpoint) -> shapes.CheckpointInfo:
    return WIRE.unstructure(item)


def checkpoint_diff(checkpoint_id: str, diffs: list[FileDiff], cannot: list[Skipped]) -> CheckpointDiffResult:
    return {"checkpoint": checkpoint_id, "files": WIRE.unstructure(diffs), "skipped": WIRE.unstructure(cannot)}


def rewind_result(rewound: Rewound) -> RewindResultWire:
    answer: RewindResultWire = WIRE.unstructure(rewound.result)
    answer["todos"] = WIRE.unstructure(list(rewound.todos))
    answer["checkpoints"] = [checkpoint_info(item) for item in rewound.checkpoints]
    if rewound.transcript is not None:
        answer["transcript"] = transcript(rewound.transcript)
    return answer


def context_usage(report: ContextReport, model: ActiveModel) -> shapes.ContextUsageWire:
    wire = {"used": report.used, **WIRE.unstructure(report), **WIRE.unstructure(model)}  # `used` first, as documented
    return cast(shapes.ContextUsageWire, wire)


def context(details: ContextDetails, model: ActiveModel) -> ContextResult:
    return cast(ContextResult, {**context_usage(details.report, model), **WIRE.unstructure(details)})


def models(view: ModelsView) -> ModelsResult:
    return WIRE.unstructure(view)


def todos(items: tuple[TodoItem, ...] | list[TodoItem]) -> TodosResult:
    return {"todos": WIRE.unstructure(list(items))}


def commands(found: list[CustomCommand]) -> CommandsResult:
    return {"commands": WIRE.unstructure(found)}


def permissions(rules: list[Rule]) -> PermissionsResult:
    return {"rules": WIRE.unstructure(rules)}


def mcp_server(status: McpServerStatus, scrub: Callable[[str], str] | None = None) -> shapes.McpServerStatusWire:
    wire: shapes.McpServerStatusWire = WIRE.unstructure(status)
    if scrub is not None:
        wire["error"] = scrub(status.error)
    return wire


def event(item: ev.AgentEvent, turn_id: str) -> dict[str, Any]:
    """The `agent/event` payload of a turn's event (ContextUsage is a notification of its own); a subagent's
    step carries the child's own event in `step`, as an event of its own without a turnId."""
    if isinstance(item, ev.SubagentStep):
        step = event(item.step, turn_id)
        del step["turnId"]
        return {"turnId": turn_id, "kind": EVENT_KINDS[ev.SubagentStep], "toolUseId": item.tool_use_id, "step": step}
    return {"turnId": turn_id, "kind": EVENT_KINDS[type(item)], **WIRE.unstructure(item)}


def confirm_params(request: ApprovalRequest) -> dict[str, Any]:
    """ConfirmParams: kind, plus command (shell), path and diff (write/edit), server, tool and input (mcp) or
    checkpoint, diff and paths (rewind); rules when "Always" would add some; the asking tool call's id."""
    return WIRE.unstructure(request)


def editor_query_params(query: EditorQuery) -> dict[str, Any]:
    """EditorQueryParams: only the fields that apply to its kind."""
    params: dict[str, Any] = WIRE.unstructure(query)
    if query.line is not None and query.character is not None:
        params["position"] = {"line": query.line, "character": query.character}
    return params


# ---------------------------------------------------------------- wire → core (what a client sends)

def confirm_decision(answer: Any) -> ApprovalDecision | None:
    """A ConfirmResult; None when the answer is not one (the caller counts that as a refusal)."""
    if isinstance(answer, dict) and isinstance(answer.get("approved"), bool):
        reason = answer.get("reason")
        return ApprovalDecision(answer["approved"], answer.get("remember") is True,
                                reason[:2000] if isinstance(reason, str) else "")
    return None


def attachment(item: dict[str, Any]) -> Attachment | ImageAttachment:
    """A checked ChatParams attachment (lsp/methods/chat.py checks and resolves it first)."""
    if isinstance(item.get("image"), ImageAttachment):
        return item["image"]
    where = item.get("range")
    lines = (where["start"]["line"] + 1, where["end"]["line"] + 1) if where else None
    return Attachment(str(item.get("uri", "")), str(item.get("text") or ""), lines)
