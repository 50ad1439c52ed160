"""Typed events of an agent turn: what every front end (LSP, ACP, terminal) renders.

Plain data with snake_case fields; each front end maps them to its own wire
format in one place (lsp/protocol.py for `agent/event`; the terminal renders
them as they are).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from ..context.report import ContextReport
from ..context.usage import Usage
from .checkpoints.model import ChangedFile, Skipped
from .todos import TodoItem


@dataclass(frozen=True)
class AgentEvent:
    """Base of every event."""


@dataclass(frozen=True)
class TextDelta(AgentEvent):
    text: str


@dataclass(frozen=True)
class ThinkingDelta(AgentEvent):
    text: str


@dataclass(frozen=True)
class ToolStart(AgentEvent):
    tool_use_id: str
    tool: str
    summary: str


@dataclass(frozen=True)
class ToolEnd(AgentEvent):
    tool_use_id: str
    tool: str
    summary: str
    is_error: bool
    result_chars: int
    marker: str = ""
    approval: str = ""  # "" (not asked), approved, always, rejected, auto, refused (tool_approval.py)
    diff: str = ""  # edits and writes: the change as it was approved (unified, the file's line numbers)
    reason: str = ""  # the user's words when they rejected it (the model is told them too)


@dataclass(frozen=True)
class UsageEvent(AgentEvent):
    """One model call's tokens (or, at a turn's end, the whole turn's)."""

    usage: Usage = field(default_factory=Usage)


@dataclass(frozen=True)
class CompactionStarted(AgentEvent):
    reason: str


@dataclass(frozen=True)
class CompactionFinished(AgentEvent):
    tokens_before: int
    tokens_after: int
    summary: str = ""  # the summary message as the model now sees it; "" when nothing changed
    reason: str = "auto"
    compacted: bool = True  # False: nothing to gain, the conversation is unchanged


@dataclass(frozen=True)
class LayerApplied(AgentEvent):
    """Earlier tool results changed form (e.g. cleared); cards can show a badge."""

    layer: str
    tool_use_ids: list[str]
    marker: str


@dataclass(frozen=True)
class RetryEvent(AgentEvent):
    attempt: int
    delay_seconds: float
    reason: str
    discard_partial: bool = False  # text already streamed by the failed attempt is to be dropped


@dataclass(frozen=True)
class ThinkingDropped(AgentEvent):
    """The API refused (400) or dropped thinking blocks whose earlier conversation changed
    (agent/thinking_notice.py): the model's reasoning from that message on is gone."""

    text: str  # the notice, in words
    path: str  # the first block, as the API names it: messages.N.content.M
    tool_use_ids: list[str] = field(default_factory=list)  # the tool calls of that message (their cards)
    retried: bool = False  # True: refused with a 400, sent again with drop_block
    blocks: int = 0  # blocks the answer says were dropped (0: not known yet, before the retry's answer)


@dataclass(frozen=True)
class ErrorEvent(AgentEvent):
    message: str


@dataclass(frozen=True)
class ToolsChanged(AgentEvent):
    """The tool list changed (an MCP server listed other tools): this request rewrites the cached prompt."""

    changes: int  # tool-list changes (cache breaks) so far in this session
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    # "head": a new tool list (one cache break); "appended": tool_addition / tool_removal blocks in a system
    # message, the conversation's tool list unchanged; "held": this model takes neither, so the change waits
    # for the next compaction (agent/turn/head.py)
    delivery: str = "head"


@dataclass(frozen=True)
class CheckpointTaken(AgentEvent):
    """The turn changed files: its checkpoint (id = the turn's id) can restore what was there before."""

    checkpoint: str
    files: tuple[ChangedFile, ...] = ()
    skipped: tuple[Skipped, ...] = ()


@dataclass(frozen=True)
class InstructionsChanged(AgentEvent):
    """Instruction files (AGENTS.md…) changed, appeared, went or were activated: this request rewrites
    the cached prompt (the system prompt carries them)."""

    changes: int  # instruction changes (cache breaks) so far in this session
    added: list[str] = field(default_factory=list)  # files as the prompt names them: "AGENTS.md", "src/AGENTS.md"
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    # "head": a new system prompt (one cache break); "appended": the files' new text appended to the
    # conversation, the system prompt unchanged (agent/turn/head.py)
    delivery: str = "head"


@dataclass(frozen=True)
class TodosChanged(AgentEvent):
    """The model wrote its task list (todo_write): the whole list as it is now."""

    todos: list[TodoItem] = field(default_factory=list)


@dataclass(frozen=True)
class ContextUsage(AgentEvent):
    """Not part of a turn: the context meter changed (the status bar's figures)."""

    report: ContextReport


@dataclass(frozen=True)
class SubagentStarted(AgentEvent):
    """A `task` call started its subagent (agent/subagents): its card shows the steps that follow."""

    tool_use_id: str  # the parent's `task` call: the card
    name: str  # the call's description
    model: str
    fork: bool = False  # started from the parent's conversation (its cached prefix)
    tools: list[str] = field(default_factory=list)  # what it may call


@dataclass(frozen=True)
class SubagentStep(AgentEvent):
    """One event of a running subagent (a ToolStart, ToolEnd, TextDelta, RetryEvent, UsageEvent, ErrorEvent,
    compaction or TodosChanged of its own), shown inside its card, never as the parent's."""

    tool_use_id: str  # the parent's `task` call
    step: AgentEvent


@dataclass(frozen=True)
class SubagentFinished(AgentEvent):
    """The subagent ended (its answer, a failure, or stopped): what it cost and where its transcript is."""

    tool_use_id: str
    name: str
    is_error: bool
    usage: Usage = field(default_factory=Usage)
    requests: int = 0
    usd: float = 0.0
    transcript: str = ""  # the context:// ref of its full transcript ("" when none was kept)


EventSink = Callable[[AgentEvent], None | Awaitable[None]]
