"""Turning a Reply into what the Messages API sends: a message JSON or SSE events.

The event sequence and shapes follow the real streaming API:
message_start, then per block content_block_start / *_delta / content_block_stop
(a `ping` after the first block start), message_delta (stop_reason + usage),
message_stop.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable

from .script import RedactedThinking, Reply, Text, Thinking, ToolUse
from ..context.tokens import estimate_tokens
from .tokens import CacheUsage

_WORDS = re.compile(r"\S+\s*|\s+")


@dataclass(frozen=True)
class SseEvent:
    name: str
    data: dict

    def encode(self) -> bytes:
        return f"event: {self.name}\ndata: {json.dumps(self.data)}\n\n".encode()


def text_chunks(text: str, words_per_chunk: int = 3) -> list[str]:
    """Split text into small word-aligned pieces, like real token streaming."""
    words = _WORDS.findall(text)
    chunks = ["".join(words[i:i + words_per_chunk]) for i in range(0, len(words), words_per_chunk)]
    return chunks or [text]


def json_chunks(encoded: str) -> list[str]:
    """Split serialized tool input into several partial_json pieces (first one empty, as the API does)."""
    size = max(1, -(-len(encoded) // 4))
    return [""] + [encoded[i:i + size] for i in range(0, len(encoded), size)]


def assign_tool_ids(reply: Reply, new_id: Callable[[], str]) -> list:
    """The reply's blocks, with server-made ids for tool_use blocks that have none."""
    return [ToolUse(b.name, b.input, new_id()) if isinstance(b, ToolUse) and not b.id else b for b in reply.content]


def block_json(block) -> dict:
    if isinstance(block, Text):
        return {"type": "text", "text": block.text}
    if isinstance(block, Thinking):
        return {"type": "thinking", "thinking": block.thinking, "signature": block.resolved_signature()}
    if isinstance(block, RedactedThinking):
        return {"type": "redacted_thinking", "data": block.data}
    return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}


def output_tokens(content: list[dict]) -> int:
    """Output tokens of a reply's blocks (JSON): their text, thinking, tool input or summary."""
    text = "".join(
        json.dumps(b.get("input")) if b.get("type") in ("tool_use", "server_tool_use")
        else "" if b.get("type") == "tool_search_tool_result"  # the API's result: no output of the model's
        else b.get("text") or b.get("thinking") or b.get("content") or "" for b in content
    )
    return max(1, estimate_tokens(len(text)))


def usage_json(cache: CacheUsage, output: int, override: dict | None) -> dict:
    usage = {
        "input_tokens": int(cache.input_tokens),
        "cache_creation_input_tokens": int(cache.write),
        "cache_read_input_tokens": int(cache.read),
        "cache_creation": {"ephemeral_5m_input_tokens": int(cache.write_5m),
                           "ephemeral_1h_input_tokens": int(cache.write_1h)},
        "output_tokens": output,
    }
    usage.update(override or {})
    return usage


def message_json(message_id: str, model: str, content: list[dict], stop_reason: str, usage: dict,
                 extra: dict | None = None) -> dict:
    """A Messages API answer; `extra`: the optional response fields it carries (input_transformations,
    context_management, diagnostics), each only when set."""
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage,
        **{k: v for k, v in (extra or {}).items() if v is not None},
    }


def _block_events(index: int, block: dict) -> list[SseEvent]:
    def delta(payload: dict) -> SseEvent:
        return SseEvent("content_block_delta", {"type": "content_block_delta", "index": index, "delta": payload})

    kind = block["type"]
    if kind == "text":
        start: dict[str, Any] = {"type": "text", "text": ""}
        deltas = [delta({"type": "text_delta", "text": c}) for c in text_chunks(block["text"])]
    elif kind == "thinking":
        start = {"type": "thinking", "thinking": "", "signature": ""}
        deltas = [delta({"type": "thinking_delta", "thinking": c}) for c in text_chunks(block["thinking"])]
        deltas.append(delta({"type": "signature_delta", "signature": block["signature"]}))
    elif kind == "compaction":
        # the SDK's accumulator takes the summary from one compaction_delta; the signature rides on the start
        start = {"type": "compaction", "content": None, "signature": block.get("signature")}
        deltas = [delta({"type": "compaction_delta", "content": block.get("content"),
                         "encrypted_content": block.get("encrypted_content")})]
    elif kind in ("tool_use", "server_tool_use"):
        start = {"type": kind, "id": block["id"], "name": block["name"], "input": {}}
        encoded = json.dumps(block["input"])
        deltas = [delta({"type": "input_json_delta", "partial_json": c}) for c in json_chunks(encoded)]
    else:  # redacted_thinking and anything else: whole in its start
        start, deltas = block, []
    return [
        SseEvent("content_block_start", {"type": "content_block_start", "index": index, "content_block": start}),
        *deltas,
        SseEvent("content_block_stop", {"type": "content_block_stop", "index": index}),
    ]


def stream_events(message: dict) -> list[SseEvent]:
    """The SSE events that stream `message` (as built by message_json)."""
    usage = message["usage"]
    start_usage = {**usage, "output_tokens": 1}
    # input_transformations and diagnostics are final in message_start; context_management comes with
    # message_delta (the SDK's BetaRawMessageDeltaEvent carries it, its accumulator copies it from there)
    head = {k: v for k, v in message.items() if k != "context_management"}
    head.update(content=[], stop_reason=None, usage=start_usage)
    events = [SseEvent("message_start", {"type": "message_start", "message": head})]
    for index, block in enumerate(message["content"]):
        block_events = _block_events(index, block)
        events.append(block_events[0])
        if index == 0:
            events.append(SseEvent("ping", {"type": "ping"}))
        events.extend(block_events[1:])
    delta: dict[str, Any] = {
        "type": "message_delta",
        "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
        "usage": {"output_tokens": usage["output_tokens"]},
    }
    if "context_management" in message:
        delta["context_management"] = message["context_management"]
    events.append(SseEvent("message_delta", delta))
    events.append(SseEvent("message_stop", {"type": "message_stop"}))
    return events
