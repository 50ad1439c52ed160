"""Mid-conversation ``role: "system"`` messages in the context engine (issue 29).

Placement as documented (platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages):
right after a user turn, followed by the reply or nothing; never rewritten; restated after a compaction.
"""

import pytest

from agentls.context import ContextConfig, ContextEngine, History, MemoryStore
from agentls.context.compact import SUMMARY_MARK
from agentls.context.engine_state import engine_state, message_row, restore
from agentls.context.structure import request_problems
from synth import assistant_text, read_turn, results, tool_call, user

NOTE = [{"type": "text", "text": "From now on, answer in French."}]
SUMMARY = "<summary>1. Goal: go on</summary>"


def system_messages(messages):
    return [m for m in messages if m["role"] == "system"]


def test_a_system_message_follows_the_last_user_turn_and_is_counted():
    engine = ContextEngine()
    engine.append(user("hello"))
    before = engine.history.total_tokens
    engine.add_system_message(NOTE)
    messages = engine.prepare(now=0).messages
    assert [m["role"] for m in messages] == ["user", "system"]
    assert request_problems(messages) == []
    assert engine.history.total_tokens > before
    assert engine.history.category_tokens["system_messages"] == engine.history.total_tokens - before
    assert engine.report().categories.system == engine.history.category_tokens["system_messages"]
    engine.append(assistant_text("bonjour"))
    assert [m["role"] for m in engine.history.messages] == ["user", "system", "assistant"]


def test_after_a_reply_the_message_waits_for_the_next_user_turn():
    engine = ContextEngine()
    engine.append(user("hello"))
    call, tool_use_id = tool_call("read_file", {"path": "a.py"})
    engine.append(call)
    engine.add_system_message(NOTE)  # no user turn to follow yet: nothing may go before the results
    assert system_messages(engine.history.messages) == []
    engine.append(results([(tool_use_id, "x = 1")]))
    assert [m["role"] for m in engine.history.messages] == ["user", "assistant", "user", "system"]
    engine.append(assistant_text("done"))
    engine.add_system_message(NOTE)
    engine.add_user_blocks([{"type": "text", "text": "next"}])
    assert engine.history.messages[-1] == {"role": "system", "content": NOTE}
    assert request_problems(engine.prepare(now=0).messages) == []


def test_two_system_messages_in_a_row_are_one_and_a_later_prompt_joins_the_user_turn():
    engine = ContextEngine()
    engine.append(user("hello"))
    engine.add_system_message(NOTE)
    engine.add_system_message([{"type": "text", "text": "Be brief."}])
    engine.add_user_blocks([{"type": "text", "text": "and also this"}])  # a prompt after a cancelled call
    messages = engine.history.messages
    assert [m["role"] for m in messages] == ["user", "system"]
    assert [b["text"] for b in messages[0]["content"]] == ["hello", "and also this"]
    assert [b["text"] for b in messages[1]["content"]] == ["From now on, answer in French.", "Be brief."]
    assert engine.history.last_role == "user" and request_problems(messages) == []


@pytest.mark.parametrize("order", [
    ["system"],
    ["user", "assistant", "system"],
    ["user", "system", "user"],
    ["user", "system", "system"],
])
def test_the_history_refuses_a_system_message_out_of_place(order):
    history = History()
    with pytest.raises(ValueError):
        for role in order:
            history.append({"role": role, "content": [{"type": "text", "text": role}]})


def test_request_problems_name_a_misplaced_system_message():
    system = {"role": "system", "content": NOTE}
    assert request_problems([user("a"), system]) == []
    assert request_problems([user("a"), system, assistant_text("b"), user("c")]) == []
    assert request_problems([system, user("a")])
    assert request_problems([user("a"), assistant_text("b"), system, user("c")])
    assert request_problems([user("a"), system, user("c")])


def test_layers_and_the_last_resort_never_touch_a_system_message():
    long_note = [{"type": "text", "text": "Rules:\n" + "keep this rule exactly\n" * 400}]
    config = ContextConfig(window=12_000, output_reserve=0, clear_at=0.0, auto_compact=False)
    engine = ContextEngine(config=config, store=MemoryStore())
    engine.append(user("go"))
    engine.add_system_message(long_note)
    for index in range(8):
        call, tool_use_id = tool_call("read_file", {"path": f"f{index}"})
        engine.append(call)
        engine.append(results([(tool_use_id, f"line of f{index}\n" * 1_500)]))
        prepared = engine.prepare(now=float(index))
        assert request_problems(prepared.messages) == []
        assert system_messages(prepared.messages) == [{"role": "system", "content": long_note}]
    assert engine.stats["clear"].count + engine.stats["truncate"].count > 0  # the layers did work around it


def test_a_compaction_restates_the_system_messages_after_the_summary():
    # a window the whole history fits as a summary request (one that does not stops at the cut: test_context_compact)
    config = ContextConfig(window=14_000, output_reserve=0, clear_at=10.0, snip_at=10.0,
                           budget_soft_at=10.0, budget_hard_at=10.0)
    engine = ContextEngine(config=config, store=MemoryStore())
    engine.append(user("first"))
    engine.add_system_message(NOTE)
    for t in range(6):
        read_turn(engine, f"file{t}.py", "contents\n" * 600)
        engine.append(assistant_text(f"done {t}"))
        engine.append(user(f"request {t}"))
    engine.add_system_message([{"type": "text", "text": "Now be brief."}])
    request = engine.summary_request()
    assert request is not None
    assert request_problems(request.messages) == []
    assert request.messages[-1]["role"] == "system"  # the ask joined the user turn before it
    engine.apply_summary(request, SUMMARY)
    messages = engine.prepare(now=0, allow_compaction=False).messages
    assert request_problems(messages) == []
    assert messages[0]["content"][0]["text"].startswith(SUMMARY_MARK)
    texts = [b["text"] for m in system_messages(messages) for b in m["content"]]
    assert texts == ["From now on, answer in French.", "Now be brief."]


def test_a_restart_keeps_system_messages_and_the_waiting_ones():
    engine = ContextEngine()
    engine.append(user("hello"))
    engine.add_system_message(NOTE)
    engine.append(assistant_text("bonjour"))
    engine.add_system_message([{"type": "text", "text": "Be brief."}])
    rows = [message_row(engine, i) for i in range(len(engine.history.messages))]
    again = ContextEngine()
    restore(again, rows, engine_state(engine))
    again.add_user_blocks([{"type": "text", "text": "next"}])
    engine.add_user_blocks([{"type": "text", "text": "next"}])
    assert again.history.messages == engine.history.messages
    assert again.history.messages[-1] == {"role": "system", "content": [{"type": "text", "text": "Be brief."}]}


def test_a_replayed_system_message_joins_the_one_before_it():
    engine = ContextEngine()
    engine.append(user("hello"))
    engine.append({"role": "system", "content": NOTE})
    engine.append({"role": "system", "content": [{"type": "text", "text": "Be brief."}]})
    assert [m["role"] for m in engine.history.messages] == ["user", "system"]
    assert len(engine.history.messages[1]["content"]) == 2
