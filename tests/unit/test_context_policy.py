"""The price rule (policy.py), clearing the assistant's prose, and the server-side editing yardstick."""

import re

from agentls.context import ContextConfig, ContextEngine, MemoryStore
from agentls.evaluation.anthropic_editing import CLEARED, AnthropicEditing
from agentls.context.blocks import blocks_of, result_text
from agentls.context.policy import READ, WRITE, rewrite_price
from agentls.evaluation.replay import standin_summary
from agentls.context.tokens import Usage
from agentls.context.structure import request_problems
from synth import read_turn, results, tool_call, user

OFF = 10.0


def engine_with(**settings) -> ContextEngine:
    base = dict(window=200_000, clear_at=0.0, snip_at=OFF, budget_soft_at=OFF, budget_hard_at=OFF,
                compact_at=OFF, clear_keep_recent=2)
    base.update(settings)
    engine = ContextEngine(config=ContextConfig(**base), store=MemoryStore())
    engine.append(user("start"))
    return engine


def call(engine: ContextEngine, now: float):
    prepared = engine.prepare(now)
    engine.record_usage(Usage(cache_read_input_tokens=engine.raw_estimate), now)
    return prepared


def test_the_price_of_a_batch_is_the_tail_written_again_and_nothing_when_cold():
    engine = engine_with()
    for i in range(4):
        read_turn(engine, f"f{i}.py", "x" * 4_000)  # 1,000 tokens each
    history = engine.history
    tail = sum(history.msg_tokens[2:]) - 500
    assert rewrite_price(history, 2, 500, cold=False) == (WRITE - READ) * tail
    assert rewrite_price(history, 2, 500, cold=True) == 0.0


def test_a_batch_waits_until_the_rent_already_paid_reaches_its_price():
    engine = engine_with()
    call(engine, 0)  # cold: nothing cached, nothing to clear yet
    batches, deferred_rent = [], 0.0
    for i in range(30):
        read_turn(engine, f"f{i}.py", f"{i}\n" * 2_000)
        waste_before = engine.waste
        prepared = call(engine, i + 1)
        if prepared.batch is not None:
            batches.append(i)
            assert waste_before >= prepared.batch.price > 0  # bought with rent already lost
        else:
            deferred_rent += engine.waste - waste_before
    assert batches and batches[0] > 2  # not at the first clearable result
    assert len(batches) < 30 // 3  # batched, not every call
    assert deferred_rent > 0


def test_a_short_session_never_rewrites_a_warm_cache():
    engine = engine_with()
    call(engine, 0)
    for i in range(3):
        read_turn(engine, f"f{i}.py", "y" * 40_000)
        assert call(engine, i + 1).batch is None  # the rent has not paid for a rewrite yet


def test_old_assistant_prose_is_cleared_and_reads_back_but_not_in_the_newest_turns():
    engine = engine_with(batch_payoff=0.0, written_keep_recent=3)
    thoughts = []
    for i in range(6):
        thought = f"thinking step {i}: " + "because " * 200
        thoughts.append(thought)
        message, tool_use_id = tool_call("run_shell", {"command": f"ls {i}"}, text=thought)
        engine.append(message)
        engine.append(results([(tool_use_id, "ok")]))
    call(engine, 1)
    texts = [b["text"] for m in engine.history.messages if m["role"] == "assistant"
             for b in blocks_of(m) if b["type"] == "text"]
    assert texts[3:] == thoughts[3:]  # the three newest turns verbatim
    for placeholder, original in zip(texts[:3], thoughts[:3]):
        assert placeholder.startswith("[earlier reasoning cleared")
        ref = re.search(r'read_file path="([^"]+)"', placeholder).group(1)
        assert engine.store.get(ref) == original
    assert all(any(b["type"] == "tool_use" for b in blocks_of(m))
               for m in engine.history.messages if m["role"] == "assistant")  # the calls stay
    listed = [p for p in engine.placeholders() if p.layer == "clearedProse"]
    assert [engine.store.get(p.ref) for p in listed] == thoughts[:3]
    assert [p.original_chars for p in listed] == [len(t) for t in thoughts[:3]]


def test_thinking_goes_after_one_turn_on_a_model_that_does_not_bind_it_while_the_words_stay_three():
    """The docs let earlier turns' thinking be left out; a model that binds it keeps it (binding.py's job)."""
    for bound in (False, True):
        engine = engine_with(batch_payoff=0.0, written_keep_recent=3, thinking_bound=bound)
        thoughts, words = [], []
        for i in range(6):
            thoughts.append(f"weighing step {i}: " + "perhaps " * 150)
            words.append(f"Step {i}: listing the directory.")
            message, tool_use_id = tool_call("run_shell", {"command": f"ls {i}"}, text=words[-1])
            message["content"].insert(0, {"type": "thinking", "thinking": thoughts[-1], "signature": f"sig{i}"})
            engine.append(message)
            engine.append(results([(tool_use_id, "ok")]))
        call(engine, 1)
        replies = [m for m in engine.history.messages if m["role"] == "assistant"]
        kept = [[b["thinking"] for b in blocks_of(m) if b["type"] == "thinking"] for m in replies]
        texts = [[b["text"] for b in blocks_of(m) if b["type"] == "text"] for m in replies]
        if bound:
            assert kept == [[t] for t in thoughts]  # nothing before a bound thinking block changes
            continue
        assert kept == [[]] * 5 + [[thoughts[5]]]  # only the newest reply keeps its thinking
        for n in (3, 4):  # the two before it keep their words, a placeholder names where the thinking is
            placeholder, said = texts[n]
            assert said == words[n]
            ref = re.search(r'read_file path="([^"]+)"', placeholder).group(1)
            assert thoughts[n] in engine.store.get(ref)
        for n in range(3):  # older: words and thinking went together, both read back
            [placeholder] = texts[n]
            stored = engine.store.get(re.search(r'read_file path="([^"]+)"', placeholder).group(1))
            assert thoughts[n] in stored and words[n] in stored
        assert request_problems(engine.history.messages) == []


def test_server_side_clearing_keeps_three_tool_uses_once_over_the_trigger():
    editing = AnthropicEditing(window=20_000, system_tokens=0)  # trigger: half the window
    assert editing.clear_trigger == 10_000
    editing.append(user("start"))
    ids = []
    for i in range(8):
        message, tool_use_id = tool_call("read_file", {"path": f"f{i}.py"})
        ids.append(tool_use_id)
        editing.append(message)
        editing.append(results([(tool_use_id, "z" * 6_000)]))  # 1,500 tokens each
    prompt, summaries = editing.prepare(standin_summary)
    assert summaries == []
    contents = {b["tool_use_id"]: result_text(b) for m in prompt for b in blocks_of(m)
                if b.get("type") == "tool_result"}
    assert [i for i in ids if contents[i] != CLEARED] == ids[-3:]
    assert len(editing.messages) == 17  # the client still holds everything


def test_server_side_compaction_keeps_the_summary_and_the_last_exchange():
    editing = AnthropicEditing(window=20_000, system_tokens=0)
    editing.append(user("start"))
    for _i in range(12):
        message, tool_use_id = tool_call("run_shell", {"command": "x" * 6_000})  # inputs are never cleared
        editing.append(message)
        editing.append(results([(tool_use_id, "ok")]))
    prompt, summaries = editing.prepare(standin_summary)
    assert len(summaries) == 1 and len(prompt) == 3
    assert prompt[0]["content"][0]["text"].startswith("<analysis>")
    assert prompt[1]["role"] == "assistant" and prompt[2]["content"][0]["type"] == "tool_result"
