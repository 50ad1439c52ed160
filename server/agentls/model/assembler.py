"""Building one assistant message from raw stream events, reporting deltas as they come.

We consume the raw SSE events (not the SDK's accumulating helper) so that we
control exactly what a block dict looks like in the history: thinking keeps
its signature, tool_use input is parsed from the concatenated input_json_delta
pieces, and nothing SDK-specific (None-valued fields) leaks into the history.

Besides the content, the message's `id`, `input_transformations` (thinking blocks the API dropped or let
through although they failed a binding check; final in message_start, replaced by a message_delta that
carries them), `diagnostics.cache_miss_reason` and `context_management.applied_edits` are kept (field
names: SDK BetaMessage / BetaRawMessageDeltaEvent). A `compaction` block arrives as a content block with
`compaction_delta`s (SDK BetaCompactionContentBlockDelta) and is kept as the API sent it; the tokens of a
compaction are reported only in `usage.iterations` ("not included in the top-level usage fields", SDK
BetaUsage; compaction-on-demand: "sum across usage.iterations"), so they are added to the usage. Event, block
and delta types this module does not know are ignored or kept whole: a newer API never breaks a reply.
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


class InvalidStreamData(IncompleteStream):
    """An SSE event whose data is not JSON (a broken proxy): as good as a stream cut there."""


async def emit(on_event: EventHandler | None, event: ModelEvent) -> None:
    if on_event is None:
        return
    result = on_event(event)
    if inspect.isawaitable(result):
        await result


def _get(raw: Any, name: str) -> Any:
    """A field of an SDK object, or of the plain dict the SDK leaves for shapes it does not know."""
    return raw.get(name) if isinstance(raw, dict) else getattr(raw, name, None)


def plain(value: Any) -> Any:
    """`value` (SDK models, lists, dicts) as plain JSON data without None fields."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def _start_block(raw: Any) -> dict:
    kind = _get(raw, "type")
    if kind == "text":
        return {"type": "text", "text": _get(raw, "text") or ""}
    if kind == "thinking":
        return {"type": "thinking", "thinking": _get(raw, "thinking") or "", "signature": _get(raw, "signature") or ""}
    if kind == "redacted_thinking":
        return {"type": "redacted_thinking", "data": _get(raw, "data")}
    if kind in _JSON_INPUT_BLOCKS:
        return {"type": kind, "id": _get(raw, "id"), "name": _get(raw, "name"), "input": {}}
    # Other blocks (compaction, server-side results, newer kinds) arrive whole; keep them as the API sent them.
    block = plain(raw)
    return block if isinstance(block, dict) else {"type": str(kind)}


def _dicts(value: Any) -> tuple[dict, ...]:
    return tuple(d for d in plain(value) if isinstance(d, dict)) if isinstance(value, (list, tuple)) else ()


class MessageAssembler:
    def __init__(self, on_event: EventHandler | None) -> None:
        self._on_event = on_event
        self._blocks: dict[int, dict] = {}
        self._json_parts: dict[int, list[str]] = {}
        self._usage: dict[str, Any] = {}
        self._compactions: list[Any] = []  # the `compaction` entries of usage.iterations (the latest list)
        self.model = ""
        self.id = ""
        self.input_transformations: tuple[dict, ...] = ()
        self.cache_miss: dict | None = None
        self.applied_edits: tuple[dict, ...] = ()
        self.stop_reason: str | None = None
        self.complete = False
        self.emitted_deltas = False  # did the caller already see partial output?

    async def feed(self, event: Any) -> None:
        handler = getattr(self, f"_on_{_get(event, 'type')}", None)
        if handler is not None:  # unknown future event types are ignored, like the SDK does
            await handler(event)

    def response(self) -> ModelResponse:
        if not self.complete:
            raise IncompleteStream("stream ended before message_stop")
        content = [self._blocks[i] for i in sorted(self._blocks)]
        usage = sum((Usage.from_api(entry) for entry in self._compactions), Usage.from_api(self._usage))
        return ModelResponse(content=content, stop_reason=self.stop_reason, usage=usage,
                             model=self.model, id=self.id, input_transformations=self.input_transformations,
                             cache_miss=self.cache_miss, applied_edits=self.applied_edits)

    # ------------------------------------------------------------ event handlers

    async def _on_message_start(self, event: Any) -> None:
        message = event.message
        self.model = _get(message, "model") or ""
        self.id = _get(message, "id") or ""
        self._merge_usage(_get(message, "usage"))
        self._merge_reports(message)

    def _merge_reports(self, source: Any) -> None:
        """The request-level reports a message_start message or a message_delta event carries."""
        transformations = _get(source, "input_transformations")
        if transformations is not None:  # a message_delta carrying them replaces message_start's
            self.input_transformations = _dicts(transformations)
        diagnostics = _get(source, "diagnostics")
        if diagnostics is not None:
            reason = plain(_get(diagnostics, "cache_miss_reason"))
            self.cache_miss = reason if isinstance(reason, dict) else None
        management = _get(source, "context_management")
        if management is not None:
            self.applied_edits = _dicts(_get(management, "applied_edits"))

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
        kind = _get(delta, "type")
        if kind == "text_delta":
            block["text"] = block.get("text", "") + delta.text
            self.emitted_deltas = True
            await emit(self._on_event, TextDelta(delta.text))
        elif kind == "thinking_delta":
            block["thinking"] = block.get("thinking", "") + delta.thinking
            self.emitted_deltas = True
            await emit(self._on_event, ThinkingDelta(delta.thinking))
        elif kind == "signature_delta":
            block["signature"] = delta.signature
        elif kind == "input_json_delta":
            self._json_parts.setdefault(event.index, []).append(delta.partial_json)
        elif kind == "citations_delta":
            block.setdefault("citations", []).append(plain(delta.citation))
        elif kind == "compaction_delta":
            self._on_compaction_delta(block, delta)

    @staticmethod
    def _on_compaction_delta(block: dict, delta: Any) -> None:
        # The summary may come in pieces; the opaque metadata is round-tripped as sent (the last one wins).
        content = _get(delta, "content")
        if content is not None:
            block["content"] = (block.get("content") or "") + content
        encrypted = _get(delta, "encrypted_content")
        if encrypted is not None:
            block["encrypted_content"] = encrypted

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
        self.stop_reason = _get(event.delta, "stop_reason") or self.stop_reason
        self._merge_usage(event.usage)
        self._merge_reports(event)

    async def _on_message_stop(self, event: Any) -> None:
        self.complete = True

    def _merge_usage(self, usage: Any) -> None:
        # message_delta counts are cumulative; a None field means "unchanged".
        for name in ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"):
            value = getattr(usage, name, None) if usage is not None else None
            if value is not None:
                self._usage[name] = int(value)
        iterations = _get(usage, "iterations") if usage is not None else None
        if isinstance(iterations, list):
            self._compactions = [entry for entry in iterations if _get(entry, "type") == "compaction"]
        split = getattr(usage, "cache_creation", None) if usage is not None else None
        if split is not None:  # the per-TTL split of the cache writes (message_start only)
            hour = getattr(split, "ephemeral_1h_input_tokens", 0)
            self._usage["cache_creation"] = {"ephemeral_1h_input_tokens": hour}
