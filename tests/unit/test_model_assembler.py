"""MessageAssembler on the stream events the API sends for its newer fields, built by the SDK the way its
stream builds them (today's mock API cannot send these yet): message id, input_transformations, the cache
miss reason, applied context edits, compaction blocks; unknown event, block and delta kinds never break it."""

from __future__ import annotations

from typing import Any

import pytest
from anthropic._models import construct_type  # what the SDK's stream does with each event's data
from anthropic.types import RawMessageStreamEvent
from anthropic.types.beta import BetaRawMessageStreamEvent

from agentls.model.assembler import MessageAssembler

USAGE = {"input_tokens": 10, "output_tokens": 1, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
DROPPED = {"type": "thinking_dropped", "path": "messages.1.content.0", "reason": "prefix_binding_mismatch"}
MISS = {"type": "system_changed", "cache_missed_input_tokens": 4200}
CLEARED = {"type": "clear_tool_uses_20250919", "cleared_tool_uses": 3, "cleared_input_tokens": 9000}


def start(**message: Any) -> dict:
    return {"type": "message_start", "message": {
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-x", "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": USAGE, **message}}


def block(index: int, content_block: dict, *deltas: dict) -> list[dict]:
    return [{"type": "content_block_start", "index": index, "content_block": content_block},
            *({"type": "content_block_delta", "index": index, "delta": d} for d in deltas),
            {"type": "content_block_stop", "index": index}]


def end(stop_reason: str = "end_turn", **extra: Any) -> list[dict]:
    return [{"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None},
             "usage": {"output_tokens": 5}, **extra}, {"type": "message_stop"}]


async def assemble(events: list[dict], event_type: Any = BetaRawMessageStreamEvent):
    assembler = MessageAssembler(None)
    for raw in events:
        await assembler.feed(construct_type(type_=event_type, value=raw))
    return assembler.response()


@pytest.mark.parametrize("event_type", [BetaRawMessageStreamEvent, RawMessageStreamEvent],
                         ids=["beta client", "plain client"])
async def test_the_request_level_reports_are_kept(event_type):
    events = [start(input_transformations=[DROPPED], diagnostics={"cache_miss_reason": MISS}),
              *block(0, {"type": "text", "text": ""}, {"type": "text_delta", "text": "hello"}),
              *end(context_management={"applied_edits": [CLEARED]})]
    response = await assemble(events, event_type)
    assert response.id == "msg_01" and response.text == "hello"
    assert response.input_transformations == (DROPPED,)
    assert response.cache_miss == MISS
    assert response.applied_edits == (CLEARED,)


async def test_without_reports_the_fields_stay_empty():
    response = await assemble([start(), *block(0, {"type": "text", "text": "hi"}), *end()])
    assert (response.input_transformations, response.cache_miss, response.applied_edits) == ((), None, ())
    pending = await assemble([start(diagnostics={"cache_miss_reason": None}), *end()])
    assert pending.cache_miss is None  # diagnosis still pending: no reason yet


async def test_a_message_delta_with_transformations_replaces_those_of_message_start():
    fallback = {**DROPPED, "path": "messages.3.content.0"}
    response = await assemble([start(input_transformations=[DROPPED]), *end(input_transformations=[fallback])])
    assert response.input_transformations == (fallback,)


async def test_a_compaction_block_is_kept_as_sent_with_its_deltas():
    events = [start(), *block(0, {"type": "compaction", "content": None},
                              {"type": "compaction_delta", "content": "The user asked "},
                              {"type": "compaction_delta", "content": "to fix the parser.",
                               "encrypted_content": "opaque"},
                              {"type": "signature_delta", "signature": "sig-c"}),
              *end("compaction")]
    response = await assemble(events)
    assert response.stop_reason == "compaction"
    assert response.content == [{"type": "compaction", "content": "The user asked to fix the parser.",
                                 "encrypted_content": "opaque", "signature": "sig-c"}]


async def test_unknown_events_blocks_and_deltas_never_break_a_reply():
    events = [start(), {"type": "some_future_event", "data": 1},
              *block(0, {"type": "future_block", "payload": {"x": 1}}, {"type": "future_delta", "bits": "y"}),
              *block(1, {"type": "text", "text": ""}, {"type": "text_delta", "text": "still here"}),
              *end()]
    response = await assemble(events)
    assert response.content[0] == {"type": "future_block", "payload": {"x": 1}}
    assert response.text == "still here"


async def test_the_tokens_of_a_compaction_count_although_the_top_level_usage_is_zero():
    zero = {"input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    iteration = {"type": "compaction", "input_tokens": 144, "output_tokens": 276, "cache_read_input_tokens": 9000,
                 "cache_creation_input_tokens": 0}
    events = [start(usage=zero), *block(0, {"type": "compaction", "content": "summary", "signature": "s"}),
              {"type": "message_delta", "delta": {"stop_reason": "compaction", "stop_sequence": None},
               "usage": {"output_tokens": 0, "iterations": [iteration]}}, {"type": "message_stop"}]
    response = await assemble(events)
    usage = response.usage
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_input_tokens) == (144, 276, 9000)
    assert response.content == [{"type": "compaction", "content": "summary", "signature": "s"}]
