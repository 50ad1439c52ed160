"""Issue 29 items 4 and 6: what the API says of each request (why the prompt cache missed, the thinking it
dropped) is recorded, survives a restart, and is told to the user in words.

The aggregation is pure (agent/cache_report.py); the restart goes through the real session store and
Agent. The paths that need the API's own answers (a diagnosis, `input_transformations`, the
prefix-mismatch 400 and its retry) run the real SDK against the strict mock.
"""

from __future__ import annotations

import io


from agentls.agent import cache_text
from agentls.agent import events as ev
from agentls.agent.store import open_session
from agentls.agent.cache_report import (CHANGED_AT, CacheLedger, facts_of, first_change, fingerprints,
                                        miss_text)
from agentls.agent.thinking_notice import dropped_text, place, retry_text
from agentls.agent.views import CostDetails
from agentls.cli.render import Renderer
from agentls.context.usage import Usage
from agentls.mock_api import Fault, Reply, Text, Thinking, ToolUse
from agentls.model.pricing import CostReport

PREFIX_400 = ("messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different "
              "conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to "
              "\"drop_block\". The tool_result in messages.2 changed.")
DROPPED = {"type": "thinking_dropped", "path": "messages.1.content.0", "reason": "prefix_binding_mismatch"}


def test_misses_are_counted_by_reason_with_their_tokens_and_words():
    ledger = CacheLedger()
    ledger.add("m", Usage(10, 5, 0, 9000), {})  # a hit: nothing to tell
    ledger.add("m", Usage(800, 5, 7000, 0), {"cache_miss": {"type": "system_changed",
                                                            "cache_missed_input_tokens": 6500}})
    ledger.add("m", Usage(800, 5, 7000, 0), facts_of({"type": "messages_changed", "cache_missed_input_tokens": 300},
                                                     [DROPPED, {**DROPPED, "path": "messages.3.content.0"}], [], 12))
    ledger.add("m", Usage(800, 5, 7000, 0), {"cache_miss": {"type": "system_changed",
                                                            "cache_missed_input_tokens": 500}})
    ledger.add("n", Usage(900, 5, 7000, 0), {"cache_miss": {"type": "previous_message_not_found"},
                                             "input_transformations": [{"type": "thinking_mismatch_allowed",
                                                                        "path": "messages.1.content.0",
                                                                        "reason": "prefix_binding_mismatch"}],
                                             "applied_edits": [{"type": "clear_tool_uses_20250919"}]})
    report = ledger.report()
    assert report.notable and report.total_requests == 5
    assert [(m.kind, m.count, m.missed_tokens) for m in report.misses] == [
        ("system_changed", 2, 7000), ("messages_changed", 1, 300), ("previous_message_not_found", 1, 0)]
    assert [m.text for m in report.misses] == ["system prompt changed", "earlier messages changed",
                                               "previous request not found (expired or another process)"]
    assert [r.number for r in report.recent_misses] == [2, 3, 4, 5]
    third = report.requests[2]
    assert third.miss is not None and third.miss.text == "earlier messages changed at messages.12"
    assert third.thinking_dropped == 2 and third.cache_write_tokens == 7000
    assert [(d.text, d.count) for d in report.thinking_dropped] == [("the conversation before it changed", 2)]
    assert report.dropped_blocks == 2 and report.thinking_let_through == 1 and report.server_edits == 1
    assert report.requests[4].miss is not None and report.requests[4].miss.missed_tokens is None


def test_a_session_with_nothing_to_tell_has_no_report_and_junk_is_ignored():
    ledger = CacheLedger()
    ledger.add("m", Usage(10), {})
    ledger.add("m", Usage(10), {"cache_miss": "system_changed", "input_transformations": [3, {"path": "x"}],
                                "applied_edits": "all"})
    ledger.add("m", Usage(10), {"cache_miss": {"type": "tools_changed", "cache_missed_input_tokens": True}})
    report = ledger.report()
    assert [(m.text, m.missed_tokens) for m in report.misses] == [("tool list changed", 0)]
    assert report.requests[2].miss is not None and report.requests[2].miss.missed_tokens is None
    assert not CacheLedger().report().notable
    assert miss_text("model_changed") == "model changed" and miss_text("brand_new") == "brand new"


def test_the_first_changed_message_is_found_by_comparing_with_the_request_before():
    one, two, three = ({"role": "user", "content": str(n)} for n in range(3))
    assert first_change(fingerprints([one, two]), fingerprints([one, two, three])) is None  # appended only
    assert first_change(fingerprints([one, two, three]), fingerprints([one, three])) == 1
    assert first_change(fingerprints([one, two]), fingerprints([one])) == 1  # cut at the end
    ledger = CacheLedger()
    assert ledger.changed_at([one, two]) is None  # no request before
    assert ledger.changed_at([one, two, three]) is None
    assert ledger.changed_at([three]) == 0
    assert CHANGED_AT not in facts_of({"type": "system_changed"}, [], [], None)
    assert facts_of(None, [], [], 4) == {}  # a position is kept only beside a miss


def test_the_notice_names_the_message_and_its_tool_cards():
    messages = [{"role": "user", "content": [{"type": "text", "text": "read it"}]},
                {"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": "s"},
                                                  {"type": "tool_use", "id": "tu_1", "name": "read_file",
                                                   "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "x"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "The file says 42. " * 10}]}]
    text, ids = retry_text("messages.1.content.0", "The tool_result in messages.2 changed.", messages)
    assert text == ("The API refused a thinking block (messages.1.content.0, the reply that called read_file): "
                    "The tool_result in messages.2 changed. Sent again with drop_block; the model's earlier "
                    "reasoning from there on is dropped.") and ids == ["tu_1"]
    text, _ = retry_text("messages.1.content.0", PREFIX_400, messages)  # the API's whole 400: only what changed
    assert "): The tool_result in messages.2 changed. Sent again" in text and "Invalid" not in text
    assert "): the conversation before it changed. Sent again" in retry_text(
        "messages.1.content.0", PREFIX_400.removesuffix(" The tool_result in messages.2 changed."), messages)[0]
    where, ids = place("messages.3.content.0", messages)
    assert where.startswith("messages.3.content.0, the reply “The file says 42.") and where.endswith("…”")
    assert ids == []
    assert place("messages.40.content.0", messages) == ("messages.40.content.0", [])
    notice, path, ids, blocks = dropped_text([DROPPED, {**DROPPED, "path": "messages.3.content.0"}], messages)
    assert (path, ids, blocks) == ("messages.1.content.0", ["tu_1"], 2)
    assert notice.startswith("The API dropped 2 thinking blocks from messages.1.content.0, the reply that called "
                             "read_file on (the conversation before it changed)")
    assert dropped_text([{"type": "thinking_mismatch_allowed", "path": "messages.1.content.0"}], messages)[0] == ""


def test_text_front_ends_say_the_reasons_in_words():
    ledger = CacheLedger()
    ledger.add("claude-x", Usage(800, 5, 7000, 40), facts_of({"type": "tools_changed", "cache_missed_input_tokens":
                                                              6900}, [DROPPED], []))
    report = ledger.report()
    lines = cache_text.cost_lines(report)
    assert lines[0] == "Prompt cache misses: 1 of 1 requests"
    assert "tool list changed: 1×, 6,900 tokens not read from cache" in lines
    assert ("request 1 (claude-x): 40 read / 7,000 written — missed: tool list changed, 6,900 tokens not read "
            "from cache — 1 thinking block(s) dropped") in lines
    assert cache_text.context_lines(report)[-1] == \
        "Thinking dropped by the API: 1 block(s) (the conversation before it changed ×1)"


async def test_the_report_survives_a_restart(make_agent):
    agent = make_agent()
    await agent.run_turn("What does notes.md say?")
    assert agent.cache_report() is None and agent.context().cache is None  # the mock diagnosed nothing
    requests = agent.cost().requests
    # the usage record as the turn writes it for an answer with a diagnosis (steps.py: _record_cache)
    agent.session.usage("claude-x", {"input_tokens": 900, "cache_creation_input_tokens": 7000},
                        None, facts_of({"type": "system_changed", "cache_missed_input_tokens": 6000}, [DROPPED], []))
    await agent.aclose()
    resumed = make_agent(new=False)
    report = resumed.cache_report()
    assert report is not None and report.total_requests == requests + 1
    assert [(m.text, m.count, m.missed_tokens) for m in report.misses] == [("system prompt changed", 1, 6000)]
    assert report.dropped_blocks == 1 and resumed.context().cache == report
    assert resumed.cost().requests == requests + 1


async def test_a_prefix_mismatch_is_retried_once_and_the_user_told_which_reply(make_agent, mock_api):
    mock_api.script(Reply([Thinking("look first"), ToolUse("read_file", {"path": "notes.md"}, "tu_notes")]),
                    Reply([Text("It says 42.")]))
    agent = make_agent(model="claude-opus-5-5")
    await agent.run_turn("What does notes.md say?")
    mock_api.inject(Fault.http_status(400, error_type="invalid_request_error", message=PREFIX_400))
    mock_api.script(Reply([Text("Still 42.")]))
    seen: list[ev.AgentEvent] = []
    assert (await agent.run_turn("And now?", seen.append)).text == "Still 42."
    told = [e for e in seen if isinstance(e, ev.ThinkingDropped)]
    assert len(told) == 1 and told[0].retried and told[0].path == "messages.1.content.0"
    assert told[0].tool_use_ids == ["tu_notes"] and "the reply that called read_file" in told[0].text
    assert "The tool_result in messages.2 changed" in told[0].text
    binding = mock_api.message_bodies[-1]["thinking"]["block_binding"]
    assert binding["prefix_mismatch_behavior"] == "drop_block"
    notes = [e for e in await agent.transcript() if e.kind == "note"]
    assert notes and notes[-1].level == "warn" and notes[-1].text == told[0].text  # kept for a reload


async def test_a_rewritten_history_is_named_in_cost_and_context_and_survives_a_restart(make_agent, mock_api,
                                                                                         workspace):
    (workspace / "notes.md").write_text("# Notes\n" + "a line of notes worth summarising\n" * 100)
    agent = make_agent(cache_diagnostics=True, thinking="off")  # nothing bound: the client-side summary as today
    await agent.run_turn("What does notes.md say?")
    mock_api.script(Reply([Text("<summary>1. Goal: notes</summary>")]))
    await agent.compact("focus on notes")  # the summary replaces the history: the next request's messages differ
    mock_api.script(Reply([Text("Noted.")]))
    await agent.run_turn("go on")
    report = agent.cache_report()
    assert report is not None and [m.kind for m in report.misses] == ["messages_changed"]
    last = report.recent_misses[-1]
    assert last.miss is not None and last.miss.text == "earlier messages changed at messages.0"
    assert last.miss.missed_tokens and agent.context().cache == report
    await agent.aclose()
    assert make_agent(new=False).cache_report() == report


async def test_drop_block_and_the_last_reply_go_on_with_the_conversation_not_into_a_new_one(make_agent, mock_api,
                                                                                             workspace):
    """A conversation that needed drop_block keeps sending it after a restart, and its first request's
    diagnostics name its own last reply; a new chat starts with neither."""
    mock_api.script(Reply([Thinking("look first"), ToolUse("read_file", {"path": "notes.md"}, "tu_notes")]),
                    Reply([Text("It says 42.")]))
    agent = make_agent(model="claude-opus-5-5", cache_diagnostics=True)
    await agent.run_turn("What does notes.md say?")
    mock_api.inject(Fault.http_status(400, error_type="invalid_request_error", message=PREFIX_400))
    mock_api.script(Reply([Text("Still 42.")]))
    await agent.run_turn("And now?")
    last_id = agent.client.previous_message_id  # the id of the last response
    assert last_id and last_id.startswith("msg_") and agent.client.drop_mismatched_thinking
    await agent.aclose()

    resumed = make_agent(new=False, model="claude-opus-5-5", cache_diagnostics=True)
    mock_api.script(Reply([Text("Yes.")]))
    await resumed.run_turn("still there?")
    body = mock_api.message_bodies[-1]
    assert body["thinking"]["block_binding"]["prefix_mismatch_behavior"] == "drop_block"
    assert body["diagnostics"] == {"previous_message_id": last_id}

    resumed.clear(open_session(workspace, new=True))
    mock_api.script(Reply([Text("Hello.")]))
    await resumed.run_turn("a new chat")
    body = mock_api.message_bodies[-1]
    assert "block_binding" not in body["thinking"] and body["diagnostics"] == {"previous_message_id": None}


async def test_a_new_or_resumed_chat_names_only_its_own_last_reply(make_agent, mock_api, workspace):
    """Each conversation is its own diagnostics chain: its first request opts in (null) rather than comparing
    with the reply of the chat shown before it, which would report a miss that is none."""
    agent = make_agent(cache_diagnostics=True, thinking="off")
    mock_api.script(Reply([Text("one")]), Reply([Text("two")]), Reply([Text("three")]), Reply([Text("four")]))
    await agent.run_turn("first chat")
    first, first_reply = agent.session.id, agent.client.previous_message_id
    agent.clear(open_session(workspace, new=True))
    await agent.run_turn("second chat")
    await agent.run_turn("second chat, again")
    agent.resume(open_session(workspace, session_id=first))
    await agent.run_turn("first chat, resumed")
    named = [body["diagnostics"]["previous_message_id"] for body in mock_api.message_bodies]
    assert named[0] is None and named[1] is None  # the new chat opts in afresh
    assert named[2] is not None  # within a chat, the reply before
    assert named[3] == first_reply  # resumed: its own last reply, not the other chat's
    assert agent.cache_report() is None  # nothing missed, nothing to report


def test_the_terminal_prints_the_reasons_and_the_notice():
    ledger = CacheLedger()
    ledger.add("claude-x", Usage(900, 5, 7000, 0), facts_of({"type": "model_changed", "cache_missed_input_tokens":
                                                             6000}, [DROPPED], []))
    out = io.StringIO()
    render = Renderer(out)
    render.cost(CostDetails(CostReport("claude-x", 1, Usage(900, 5, 7000, 0), 0.03), ledger.report()))
    render(ev.ThinkingDropped("The API refused a thinking block (messages.1.content.0): \x1b[2Jx.", "messages.1"))
    printed = out.getvalue()
    assert "Prompt cache misses: 1 of 1 requests" in printed and "model changed: 1×, 6,000 tokens" in printed
    assert "! The API refused a thinking block (messages.1.content.0)" in printed and "\x1b[2J" not in printed
