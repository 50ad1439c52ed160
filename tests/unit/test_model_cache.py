"""with_cache_breakpoints: where the breakpoints go, never more than 4, inputs untouched."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from agentls.model import with_cache_breakpoints
from agentls.mock_api.validation import request_error

EPHEMERAL = {"type": "ephemeral"}
TOOLS = [{"name": "a", "input_schema": {"type": "object"}}, {"name": "b", "input_schema": {"type": "object"}}]


def marked_positions(system, tools, messages):
    found = [f"system.{i}" for i, b in enumerate(system) if "cache_control" in b]
    found += [f"tools.{i}" for i, t in enumerate(tools) if "cache_control" in t]
    for i, m in enumerate(messages):
        if isinstance(m["content"], list):
            found += [f"messages.{i}.{j}" for j, b in enumerate(m["content"]) if "cache_control" in b]
    return found


def test_legacy_placement_system_tools_tail_and_previous_user_message():
    messages = [
        {"role": "user", "content": "first question"},
        {"role": "assistant", "content": [{"type": "text", "text": "calling"},
                                          {"type": "tool_use", "id": "t1", "name": "a", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "r"}]},
    ]
    system, tools, out = with_cache_breakpoints("sys", TOOLS, messages, placement="legacy")
    assert system == [{"type": "text", "text": "sys", "cache_control": EPHEMERAL}]
    assert marked_positions(system, tools, out) == ["system.0", "tools.1", "messages.0.0", "messages.2.0"]
    assert out[0]["content"] == [{"type": "text", "text": "first question", "cache_control": EPHEMERAL}]


def conversation(rounds: int) -> list[dict]:
    messages = [{"role": "user", "content": "first question"}]
    for i in range(rounds):
        messages += [{"role": "assistant", "content": [{"type": "tool_use", "id": f"t{i}", "name": "a", "input": {}}]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "r"}]}]
    return messages


def test_frontier_placement_head_frontier_and_tail():
    messages = conversation(5)  # 11 messages
    system, tools, out = with_cache_breakpoints("sys", TOOLS, messages, frontier=4)
    # No tool breakpoint: the system prompt's caches the tools before it.
    assert marked_positions(system, tools, out) == ["system.0", "messages.4.0", "messages.8.0", "messages.10.0"]
    # The request applying a batch reads the old frontier and writes the new one.
    system, tools, out = with_cache_breakpoints("sys", TOOLS, messages, frontier=7, previous_frontier=4)
    assert marked_positions(system, tools, out) == ["system.0", "messages.4.0", "messages.7.0", "messages.10.0"]
    # Without a system prompt the head breakpoint goes on the last tool.
    system, tools, out = with_cache_breakpoints(None, TOOLS, messages, frontier=4)
    assert marked_positions(system, tools, out) == ["tools.1", "messages.4.0", "messages.8.0", "messages.10.0"]


def test_one_hour_ttl_on_head_and_frontier_only():
    _, tools, out = with_cache_breakpoints(None, TOOLS, conversation(5), frontier=4, stable_ttl="1h")
    hour = {"type": "ephemeral", "ttl": "1h"}
    assert tools[1]["cache_control"] == hour and out[4]["content"][0]["cache_control"] == hour
    assert out[8]["content"][0]["cache_control"] == EPHEMERAL and out[10]["content"][0]["cache_control"] == EPHEMERAL


def test_existing_marks_are_replaced_not_added():
    stale = {"type": "text", "text": "old", "cache_control": EPHEMERAL}
    messages = [{"role": "user", "content": [stale, stale, {"type": "text", "text": "q"}]}]
    tools = [dict(TOOLS[0], cache_control=EPHEMERAL), TOOLS[1]]
    system, tools_out, out = with_cache_breakpoints([stale, {"type": "text", "text": "s"}], tools, messages,
                                                    placement="legacy")
    assert marked_positions(system, tools_out, out) == ["system.1", "tools.1", "messages.0.2"]


def test_thinking_and_empty_text_blocks_are_skipped():
    messages = [{"role": "user", "content": "q"},
                {"role": "assistant", "content": [{"type": "text", "text": "answer"},
                                                  {"type": "thinking", "thinking": "t", "signature": "s"},
                                                  {"type": "text", "text": ""}]}]
    system, tools, out = with_cache_breakpoints(None, [], messages)
    assert system == [] and tools == []
    assert marked_positions(system, tools, out) == ["messages.0.0", "messages.1.0"]


def test_untouched_messages_are_shared_not_copied():
    messages = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"},
                {"role": "user", "content": "c"}, {"role": "assistant", "content": "d"},
                {"role": "user", "content": "e"}]
    _, _, out = with_cache_breakpoints("s", [], messages)
    assert out[0] is messages[0] and out[1] is messages[1] and out[3] is messages[3]
    assert out[2] is not messages[2] and out[4] is not messages[4]


text_block = st.builds(lambda t, c: {"type": "text", "text": t, **({"cache_control": EPHEMERAL} if c else {})},
                       st.text(max_size=5), st.booleans())
thinking_block = st.just({"type": "thinking", "thinking": "t", "signature": "s"})
content = st.one_of(st.text(min_size=1, max_size=5),
                    st.lists(st.one_of(text_block, thinking_block), min_size=1, max_size=4))


@st.composite
def conversations(draw):
    n = draw(st.integers(1, 7))
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": draw(content)} for i in range(n)]


@settings(max_examples=80, deadline=None)
@given(system=st.one_of(st.none(), st.text(max_size=5), st.lists(text_block, max_size=3)),
       tools=st.lists(st.just(TOOLS[0]), max_size=3), messages=conversations())
def test_never_more_than_four_never_mutates_never_invalid(system, tools, messages):
    originals = copy.deepcopy((system, tools, messages))
    frontier = len(messages) // 2 if len(messages) > 2 else None
    previous = frontier - 1 if frontier and len(messages) % 2 else None
    system_out, tools_out, messages_out = with_cache_breakpoints(system, tools, messages, frontier=frontier,
                                                                 previous_frontier=previous, stable_ttl="1h")
    assert (system, tools, messages) == originals
    assert len(marked_positions(system_out, tools_out, messages_out)) <= 4
    body = {"model": "m", "max_tokens": 10, "system": system_out, "tools": tools_out, "messages": messages_out}
    problem = request_error(body)
    assert problem is None or "cache_control" not in problem


# ---------------------------------------------------------------- system messages and compaction blocks

def test_a_system_message_after_the_last_user_message_is_the_tail():
    messages = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"},
                {"role": "user", "content": "c"}, {"role": "system", "content": "from now on, be brief"}]
    _, _, out = with_cache_breakpoints("s", [], messages)
    # the tail is the system message; the previous call's tail (message 0), not the user message it follows
    assert marked_positions([], [], out) == ["messages.0.0", "messages.3.0"]
    assert out[3] == {"role": "system", "content": [{"type": "text", "text": "from now on, be brief",
                                                    "cache_control": EPHEMERAL}]}


def test_a_system_message_that_ended_the_previous_call_is_where_its_tail_was():
    messages = [{"role": "user", "content": "a"}, {"role": "system", "content": [{"type": "text", "text": "rule"}]},
                {"role": "assistant", "content": "b"}, {"role": "user", "content": "c"}]
    _, _, out = with_cache_breakpoints("s", [], messages)
    assert marked_positions([], [], out) == ["messages.1.0", "messages.3.0"]


def test_tool_changes_and_compaction_blocks_take_a_breakpoint():
    compaction = {"type": "compaction", "content": "summary", "signature": "sig"}
    removal = {"type": "tool_removal", "tool": {"type": "tool_reference", "name": "a"}}
    messages = [{"role": "user", "content": [compaction, {"type": "text", "text": "go on"}]},
                {"role": "assistant", "content": "b"}, {"role": "user", "content": "c"},
                {"role": "system", "content": [removal]}]
    _, _, out = with_cache_breakpoints("s", TOOLS, messages, frontier=0)
    assert marked_positions([], [], out) == ["messages.0.1", "messages.3.0"]
    _, _, only = with_cache_breakpoints("s", [], [{"role": "user", "content": [compaction]}])
    assert only[0]["content"][0] == {**compaction, "cache_control": EPHEMERAL}


def test_deferred_tools_never_carry_the_tools_breakpoint():
    deferred = {"name": "mcp_x", "input_schema": {"type": "object"}, "defer_loading": True}
    _, tools, _ = with_cache_breakpoints(None, [*TOOLS, deferred], [{"role": "user", "content": "a"}])
    assert marked_positions([], tools, []) == ["tools.1"]
    _, only_deferred, _ = with_cache_breakpoints(None, [deferred], [{"role": "user", "content": "a"}])
    assert marked_positions([], only_deferred, []) == []
