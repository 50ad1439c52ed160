"""Typed events of an agent turn; any front end (LSP, terminal) subscribes to them.

Each event knows its wire form: the camelCase `agent/event` payload of
docs/protocol.md, every field present.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Awaitable, Callable, ClassVar, Union


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


@dataclass(frozen=True)
class AgentEvent:
    kind: ClassVar[str] = ""

    def wire(self, turn_id: str) -> dict[str, Any]:
        data = {"turnId": turn_id, "kind": self.kind}
        for f in fields(self):
            data[_camel(f.name)] = getattr(self, f.name)
        return data


@dataclass(frozen=True)
class TextDelta(AgentEvent):
    kind: ClassVar[str] = "textDelta"
    text: str


@dataclass(frozen=True)
class ThinkingDelta(AgentEvent):
    kind: ClassVar[str] = "thinkingDelta"
    text: str


@dataclass(frozen=True)
class ToolStart(AgentEvent):
    kind: ClassVar[str] = "toolStart"
    tool_use_id: str
    tool: str
    summary: str


@dataclass(frozen=True)
class ToolEnd(AgentEvent):
    kind: ClassVar[str] = "toolEnd"
    tool_use_id: str
    tool: str
    summary: str
    is_error: bool
    result_chars: int
    marker: str = ""


@dataclass(frozen=True)
class UsageEvent(AgentEvent):
    kind: ClassVar[str] = "usage"
    usage: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class CompactionStarted(AgentEvent):
    kind: ClassVar[str] = "compactionStarted"
    reason: str


@dataclass(frozen=True)
class CompactionFinished(AgentEvent):
    kind: ClassVar[str] = "compactionFinished"
    tokens_before: int
    tokens_after: int
    summary: str = ""  # the summary message as the model now sees it; "" when nothing changed
    reason: str = "auto"
    compacted: bool = True  # False: nothing to gain, the conversation is unchanged


@dataclass(frozen=True)
class LayerApplied(AgentEvent):
    """Earlier tool results changed form (e.g. cleared); cards can show a badge."""

    kind: ClassVar[str] = "layer"
    layer: str
    tool_use_ids: list[str]
    marker: str


@dataclass(frozen=True)
class RetryEvent(AgentEvent):
    kind: ClassVar[str] = "retry"
    attempt: int
    delay_seconds: float
    reason: str
    discard_partial: bool = False  # text already streamed by the failed attempt is to be dropped


@dataclass(frozen=True)
class ErrorEvent(AgentEvent):
    kind: ClassVar[str] = "error"
    message: str


@dataclass(frozen=True)
class ToolsChanged(AgentEvent):
    """The tool list changed (an MCP server listed other tools): this request rewrites the cached prompt."""

    kind: ClassVar[str] = "toolsChanged"
    changes: int  # tool-list changes (cache breaks) so far in this session
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class CheckpointTaken(AgentEvent):
    """The turn changed files: its checkpoint (id = the turn's id) can restore what was there before."""

    kind: ClassVar[str] = "checkpoint"
    checkpoint: str
    files: list[dict[str, str]] = field(default_factory=list)  # {path, change}
    skipped: list[dict[str, str]] = field(default_factory=list)  # {path, change, reason}


@dataclass(frozen=True)
class ContextUsage(AgentEvent):
    """Not part of a turn: the `agent/contextUsage` notification's payload."""

    kind: ClassVar[str] = "contextUsage"
    payload: dict[str, Any] = field(default_factory=dict)


EventSink = Callable[[AgentEvent], Union[None, Awaitable[None]]]


def usage_wire(usage: Any) -> dict[str, int]:
    return {
        "inputTokens": int(usage.input_tokens),
        "outputTokens": int(usage.output_tokens),
        "cacheReadTokens": int(usage.cache_read_input_tokens),
        "cacheWriteTokens": int(usage.cache_creation_input_tokens),
    }
