"""Building one assistant message from raw stream events, reporting deltas as they come.

We consume the raw SSE events (not the SDK's accumulating helper) so that we
control exactly what a block dict looks like in the history: thinking keeps
its signature, tool_use input is parsed from the concatenated input_json_delta
pieces, and nothing SDK-specific (None-valued fields) leaks into the history.
"""

from __future__ import annotations

import inspect
import json
import logging
from typing import Any

from .events import EventHandler, ModelEvent, TextDelta, ThinkingDelta, ToolUseStarted
from .response import ModelResponse, Usage

log = logging.getLogger(__name__)

_JSON_INPUT_BLOCKS = ("tool_use", "server_tool_use")


class IncompleteStream(Exception):
    """The stream ended before message_stop: the connection dropped cleanly mid-reply."""


async def emit(on_event: EventHandler | None, event: ModelEvent) -> None:
    if on_event is None:
        return
    result = on_event(event)
    if inspect.isawaitable(result):
        await result


def _start_block(raw: Any) -> dict:
    kind = raw.type
    if kind == "text":
        return {"type": "text", "text": raw.text or ""}
    if kind == "thinking":
        return {"type": "thinking", "thinking": raw.thinking or "", "signature": raw.signature or ""}
    if kind == "redacted_thinking":
        return {"type": "redacted_thinking", "data": raw.data}
    if kind in _JSON_INPUT_BLOCKS:
        return {"type": kind, "id": raw.id, "name": raw.name, "input": {}}
    # Other server-side blocks arrive whole; keep them as the API sent them.
    return raw.model_dump(mode="json", exclude_none=True)


class MessageAssembler:
    def __init__(self, on_event: EventHandler | None) -> None:
        self._on_event = on_event
        self._blocks: dict[int, dict] = {}
        self._json_parts: dict[int, list[str]] = {}
        self._usage: dict[str, Any] = {}
        self.model = ""
        self.stop_reason: str | None = None
        self.complete = False
        self.emitted_deltas = False  # did the caller already see partial output?

    async def feed(self, event: Any) -> None:
        handler = getattr(self, f"_on_{event.type}", None)
        if handler is not None:  # unknown future event types are ignored, like the SDK does
            await handler(event)

    def response(self) -> ModelResponse:
        if not self.complete:
            raise IncompleteStream("stream ended before message_stop")
        content = [self._blocks[i] for i in sorted(self._blocks)]
        return ModelResponse(content=content, stop_reason=self.stop_reason,
                             usage=Usage.from_api(self._usage), model=self.model)

    # ------------------------------------------------------------ event handlers

    async def _on_message_start(self, event: Any) -> None:
        self.model = event.message.model or ""
        self._merge_usage(event.message.usage)

    async def _on_content_block_start(self, event: Any) -> None:
        block = _start_block(event.content_block)
        self._blocks[event.index] = block
        if block["type"] in _JSON_INPUT_BLOCKS:
            self._json_parts[event.index] = []
            self.emitted_deltas = True
            await emit(self._on_event, ToolUseStarted(id=block["id"], name=block["name"]))

    async def _on_content_block_delta(self, event: Any) -> None:
        block = self._blocks.get(event.index)
        if block is None:
            log.warning("delta for unknown content block %s ignored", event.index)
            return
        delta = event.delta
        if delta.type == "text_delta":
            block["text"] = block.get("text", "") + delta.text
            self.emitted_deltas = True
            await emit(self._on_event, TextDelta(delta.text))
        elif delta.type == "thinking_delta":
            block["thinking"] = block.get("thinking", "") + delta.thinking
            self.emitted_deltas = True
            await emit(self._on_event, ThinkingDelta(delta.thinking))
        elif delta.type == "signature_delta":
            block["signature"] = delta.signature
        elif delta.type == "input_json_delta":
            self._json_parts.setdefault(event.index, []).append(delta.partial_json)
        elif delta.type == "citations_delta":
            block.setdefault("citations", []).append(delta.citation.model_dump(mode="json", exclude_none=True))

    async def _on_content_block_stop(self, event: Any) -> None:
        parts = self._json_parts.pop(event.index, None)
        block = self._blocks.get(event.index)
        if parts is None or block is None:
            return
        encoded = "".join(parts)
        try:
            block["input"] = json.loads(encoded) if encoded.strip() else {}
        except ValueError:
            # Happens when max_tokens cuts a tool call short; stop_reason tells the caller.
            log.warning("tool_use %s input is not valid JSON (%d chars); using {}", block.get("id"), len(encoded))
            block["input"] = {}

    async def _on_message_delta(self, event: Any) -> None:
        self.stop_reason = event.delta.stop_reason or self.stop_reason
        self._merge_usage(event.usage)

    async def _on_message_stop(self, event: Any) -> None:
        self.complete = True

    def _merge_usage(self, usage: Any) -> None:
        # message_delta counts are cumulative; a None field means "unchanged".
        for name in ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"):
            value = getattr(usage, name, None) if usage is not None else None
            if value is not None:
                self._usage[name] = int(value)
        split = getattr(usage, "cache_creation", None) if usage is not None else None
        if split is not None:  # the per-TTL split of the cache writes (message_start only)
            hour = getattr(split, "ephemeral_1h_input_tokens", 0)
            self._usage["cache_creation"] = {"ephemeral_1h_input_tokens": hour}
