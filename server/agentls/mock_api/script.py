"""Scripted replies: what the mock model answers next, block by block.

A reply can be built in Python (`Reply([Text("hi"), ToolUse("read_file", {...})])`)
or read from JSON (the `--script FILE.json` format), which uses the same
shapes as Anthropic content blocks:

    {"content": [{"type": "thinking", "thinking": "..."},
                 {"type": "text", "text": "..."},
                 {"type": "tool_use", "name": "read_file", "input": {"path": "a.py"}}],
     "stop_reason": "tool_use", "usage": {"output_tokens": 12}, "chunk_delay": 0.01}

A JSON entry of the form {"fault": {...}} is a fault instead (see faults.py).
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from typing import Any

STOP_REASONS = ("end_turn", "tool_use", "max_tokens", "pause_turn", "stop_sequence", "refusal")


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Thinking:
    thinking: str
    signature: str | None = None  # None → a deterministic fake signature

    def resolved_signature(self) -> str:
        if self.signature is not None:
            return self.signature
        digest = hashlib.sha256(self.thinking.encode()).digest()
        return "mock-sig-" + base64.b64encode(digest).decode()


@dataclass(frozen=True)
class RedactedThinking:
    data: str


@dataclass(frozen=True)
class ToolUse:
    name: str
    input: dict = field(default_factory=dict)
    id: str | None = None  # None → assigned by the server, unique per reply


@dataclass(frozen=True)
class ToolSearch:
    """The model searching its deferred tools with the request's tool search tool (mock_api/tool_search.py): sent
    as a `server_tool_use` and the API's `tool_search_tool_result`."""
    query: str
    id: str | None = None  # None → assigned by the server (srvtoolu_…)


Block = Text | Thinking | RedactedThinking | ToolUse | ToolSearch


@dataclass(frozen=True)
class Reply:
    """One assistant message the mock will send.

    stop_reason None means "tool_use" when the reply has a tool_use block,
    else "end_turn". usage overrides individual fields of the computed usage.
    chunk_delay (seconds) is slept before each streamed delta.
    """

    content: tuple[Block, ...]
    stop_reason: str | None = None
    usage: dict | None = None
    chunk_delay: float = 0.0
    model: str | None = None

    def __init__(self, content: Any = (), stop_reason: str | None = None, usage: dict | None = None,
                 chunk_delay: float = 0.0, model: str | None = None) -> None:
        if isinstance(content, (str, Text, Thinking, RedactedThinking, ToolUse, ToolSearch)):
            content = [content]
        blocks = tuple(Text(b) if isinstance(b, str) else b for b in content)
        if stop_reason is not None and stop_reason not in STOP_REASONS:
            raise ValueError(f"unknown stop_reason {stop_reason!r}; expected one of {STOP_REASONS}")
        object.__setattr__(self, "content", blocks)
        object.__setattr__(self, "stop_reason", stop_reason)
        object.__setattr__(self, "usage", dict(usage) if usage else None)
        object.__setattr__(self, "chunk_delay", float(chunk_delay))
        object.__setattr__(self, "model", model)

    @property
    def effective_stop_reason(self) -> str:
        if self.stop_reason:
            return self.stop_reason
        return "tool_use" if any(isinstance(b, ToolUse) for b in self.content) else "end_turn"


def block_from_json(raw: dict) -> Block:
    kind = raw.get("type")
    if kind == "text":
        return Text(str(raw["text"]))
    if kind == "thinking":
        return Thinking(str(raw["thinking"]), raw.get("signature"))
    if kind == "redacted_thinking":
        return RedactedThinking(str(raw["data"]))
    if kind == "tool_use":
        return ToolUse(str(raw["name"]), dict(raw.get("input") or {}), raw.get("id"))
    if kind == "tool_search":
        return ToolSearch(str(raw["query"]), raw.get("id"))
    raise ValueError(f"unsupported scripted block type {kind!r}")


def reply_from_json(raw: Any) -> Reply:
    if isinstance(raw, str):
        return Reply([Text(raw)])
    content = raw.get("content", [])
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    return Reply(
        [block_from_json(b) for b in content],
        stop_reason=raw.get("stop_reason"),
        usage=raw.get("usage"),
        chunk_delay=raw.get("chunk_delay", 0.0),
        model=raw.get("model"),
    )
