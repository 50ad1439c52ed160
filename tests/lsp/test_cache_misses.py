"""Issue 29 items 4 and 6 on the LSP wire: the cache report in agent/cost and agent/context (an optional
member, present only when there is something to tell), the thinkingDropped event, and the terminal
client reading them back.

The shapes are checked against the TypedDicts (themselves checked against docs/protocol.md by
test_protocol_doc.py). The end-to-end retry runs pytest-lsp against the mock.
"""

from __future__ import annotations

import json
import typing


from agentls.agent import events as ev
from agentls.agent.cache_report import CacheLedger, facts_of
from agentls.agent.runtime import ActiveModel
from agentls.agent.views import ContextDetails, CostDetails
from agentls.cli import lsp_wire
from agentls.context.report import Categories, ContextReport
from agentls.context.usage import Usage
from agentls.lsp import protocol, shapes
from agentls.mock_api import Fault, Reply, Text, Thinking, ToolUse
from agentls.model.pricing import CostReport
from .helpers import options_for

PREFIX_400 = ("messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different "
              "conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to "
              "\"drop_block\".")


def _report():
    ledger = CacheLedger()
    ledger.add("claude-x", Usage(10, 5, 0, 9000), {})
    ledger.add("claude-x", Usage(900, 5, 7000, 0), facts_of(
        {"type": "messages_changed", "cache_missed_input_tokens": 6500},
        [{"type": "thinking_dropped", "path": "messages.1.content.0", "reason": "prefix_binding_mismatch"}],
        [{"type": "clear_tool_uses_20250919", "cleared_tool_uses": 2}], 12))
    return ledger.report()


COST = CostReport("claude-x", 2, Usage(910, 10, 7000, 9000), 0.5)
DETAILS = ContextDetails(ContextReport(1000, 900, 500, 0.55, "warn", Categories(1, 2, 3, 4, 5, 6), (), "none", 0.8),
                         cache=_report())


def _conforms(shape: type, wire: dict) -> None:
    declared = set(typing.get_type_hints(shape))
    required = set(getattr(shape, "__required_keys__", declared))
    assert required <= set(wire) <= declared, f"{shape.__name__}: {sorted(set(wire) ^ declared)}"


def test_the_cache_report_has_exactly_the_documented_fields_and_reads_back():
    cost = protocol.cost(COST, _report())
    cache = cost["cache"]
    _conforms(protocol.CostResult, dict(cost))
    _conforms(shapes.CacheReportWire, dict(cache))
    _conforms(shapes.RequestCacheWire, dict(cache["requests"][1]))
    _conforms(shapes.CacheMissWire, dict(cache["requests"][1]["miss"] or {}))
    _conforms(shapes.MissTotalWire, dict(cache["misses"][0]))
    _conforms(shapes.DropTotalWire, dict(cache["thinkingDropped"][0]))
    assert cache["requests"][0]["miss"] is None
    assert cache["misses"] == [{"kind": "messages_changed", "text": "earlier messages changed", "count": 1,
                                "missedTokens": 6500}]
    assert cache["recentMisses"][0]["miss"]["text"] == "earlier messages changed at messages.12"
    assert cache["serverEdits"] == 1
    json.dumps(cost)
    assert lsp_wire.cost_from_wire(dict(cost)) == CostDetails(COST, _report())
    context = protocol.context(DETAILS, ActiveModel("claude-x", False, 200_000))
    _conforms(protocol.ContextResult, dict(context))
    assert context["cache"] == cache
    assert lsp_wire.context_from_wire(dict(context)) == DETAILS


def test_nothing_to_tell_leaves_the_member_out():
    assert "cache" not in protocol.cost(COST)
    assert lsp_wire.cost_from_wire(dict(protocol.cost(COST))) == CostDetails(COST, None)
    plain = ContextDetails(DETAILS.report)
    assert "cache" not in protocol.context(plain, ActiveModel("claude-x", False, 200_000))


def test_the_thinking_dropped_event_reads_back_as_it_was_sent():
    event = ev.ThinkingDropped("The API refused a thinking block (…)", "messages.1.content.0", ["tu_1"], True, 0)
    wire = protocol.event(event, "turn-1")
    assert wire == {"turnId": "turn-1", "kind": "thinkingDropped", "text": event.text, "path": "messages.1.content.0",
                    "toolUseIds": ["tu_1"], "retried": True, "blocks": 0}
    assert lsp_wire.event_from_wire(wire) == event


async def test_the_panel_is_told_which_reply_lost_its_thinking(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api, model="claude-opus-5-5"))
    mock_api.script(Reply([Thinking("look first"), ToolUse("read_file", {"path": "notes.md"}, "tu_notes")]),
                    Reply([Text("It says 42.")]))
    await editor.request("agent/chat", {"prompt": "What does notes.md say?"})
    mock_api.inject(Fault.http_status(400, error_type="invalid_request_error", message=PREFIX_400))
    mock_api.script(Reply([Text("Still 42.")]))
    assert (await editor.request("agent/chat", {"prompt": "And now?"}))["text"] == "Still 42."
    told = [e for e in editor.events if e["kind"] == "thinkingDropped"]
    assert len(told) == 1 and told[0]["retried"] and told[0]["toolUseIds"] == ["tu_notes"]
    assert "the reply that called read_file" in told[0]["text"]
    sessions = await editor.request("agent/sessions", {})
    resumed = await editor.request("agent/resume", {"sessionId": sessions["current"]})
    notes = [e for e in resumed["transcript"] if e["kind"] == "note"]
    assert notes and notes[-1]["level"] == "warn" and notes[-1]["text"] == told[0]["text"]
