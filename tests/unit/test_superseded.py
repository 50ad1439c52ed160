"""Superseded harness state blocks (superseded.py): through the real engine, history, compaction and replay."""

import pytest

from agentls.context import ContextConfig, ContextEngine, MemoryStore
from agentls.context import rewrite as rw
from agentls.context.blocks import blocks_of
from agentls.context.compact import user_texts_before
from agentls.context.engine_state import engine_state, message_row, restore
from agentls.context.history import History
from agentls.context.placeholders import is_superseded
from agentls.context.structure import request_problems
from agentls.context.state_blocks import state_tag
from agentls.context.tokens import Usage
from agentls.evaluation.replay import replay_trace
from agentls.evaluation.shaped_traces import environment_every_turn
from synth import results, tool_call, user

OFF = 10.0


def environment(turn: int) -> str:
    tabs = "\n".join(f"src/export/file{j}.ts" for j in range(30))
    return f"<environment_details>\n# Open tabs\n{tabs}\n# Current time\n10:{turn:02d}\n</environment_details>"


def engine_with(**settings) -> ContextEngine:
    base = dict(window=200_000, output_reserve=0, clear_at=0.0, snip_at=OFF, budget_soft_at=OFF,
                budget_hard_at=OFF, compact_at=OFF, min_batch_tokens=0, batch_payoff=0.0, clear_keep_recent=50)
    base.update(settings)
    engine = ContextEngine(config=ContextConfig(**base), store=MemoryStore())
    engine.append(user("Make the exporter write CSV."))
    return engine


def run(engine: ContextEngine, turns: int, extra=environment) -> list:
    """`turns` tool calls whose result messages each carry `extra(turn)`; every request prepared and answered."""
    sent = []
    for turn in range(turns):
        prepared = engine.prepare(float(turn))
        assert request_problems(prepared.messages) == []
        sent.append(prepared)
        engine.record_usage(Usage(cache_read_input_tokens=prepared.estimate), float(turn))
        message, tool_use_id = tool_call("run_shell", {"command": f"npm test -- case{turn}"})
        engine.append(message)
        answer = results([(tool_use_id, f"case{turn}: ok")])
        answer["content"].append({"type": "text", "text": extra(turn)})
        engine.append(answer)
    sent.append(engine.prepare(float(turns)))
    return sent


def state_texts(engine: ContextEngine) -> list[str]:
    return [b["text"] for m in engine.history.messages if m["role"] == "user" for b in blocks_of(m)
            if b.get("type") == "text" and (state_tag(b) or is_superseded(b["text"]))]


def test_an_older_state_block_a_newer_restates_goes_to_the_store_and_the_newest_stays():
    engine = engine_with()
    sent = run(engine, 6)
    texts = state_texts(engine)
    assert texts[-1] == environment(5), "the newest block of its tag is kept verbatim"
    assert all(is_superseded(t) for t in texts[:-1]) and len(texts) == 6
    for turn, text in enumerate(texts[:-1]):
        ref = text.split('read_file path="')[1].split('"')[0]
        assert engine.store.get(ref) == environment(turn), "lossless: the original reads back by its ref"
    assert engine.stats[rw.SUPERSEDE].count == 5
    assert sent[-1].batch is not None and request_problems(sent[-1].messages) == []
    off = engine_with(supersede_states=False)
    run(off, 6)
    assert state_texts(off) == [environment(t) for t in range(6)]


def test_blocks_of_one_tag_that_say_different_things_are_all_kept():
    def reminder(turn: int) -> str:
        return "<system-reminder>\n" + "\n".join(f"file{turn}_{j}.py was modified by the user" for j in range(12)) \
            + "\n</system-reminder>"
    engine = engine_with()
    run(engine, 5, extra=reminder)
    assert state_texts(engine) == [reminder(t) for t in range(5)]


def test_only_a_whole_tagged_element_of_some_length_is_a_state_block():
    body = "\n".join(f"line {n}" for n in range(60))
    assert state_tag({"type": "text", "text": f"<env_ctx a=\"1\">\n{body}\n</env_ctx>"}) == "env_ctx"
    assert state_tag({"type": "text", "text": f"Please look at <env>{body}</env> and fix it"}) is None
    assert state_tag({"type": "text", "text": f"<env>{body}</other>"}) is None
    assert state_tag({"type": "text", "text": "<env>short</env>"}) is None
    assert state_tag({"type": "tool_result", "tool_use_id": "t", "content": f"<env>{body}</env>"}) is None


def test_a_compaction_quotes_no_state_block_as_the_users_words():
    engine = engine_with()
    run(engine, 4)
    texts = user_texts_before(engine.history, len(engine.history.messages))
    assert texts == ["Make the exporter write CSV."]


def test_messages_leaving_renumber_what_the_index_points_at():
    history = History()
    history.append(user("go"))
    for turn in range(4):
        message, tool_use_id = tool_call("run_shell", {"command": f"c{turn}"})
        history.append(message)
        answer = results([(tool_use_id, "ok")])
        answer["content"].append({"type": "text", "text": environment(turn)})
        history.append(answer)
    assert [(m, b) for m, b, _ in history.states.candidates(len(history.messages))] == [(2, 1), (4, 1), (6, 1)]
    history.drop_messages({1, 2})  # the first turn leaves (as a fold takes it)
    found = list(history.states.candidates(len(history.messages)))
    assert [(m, b) for m, b, _ in found] == [(2, 1), (4, 1)]
    for message, block, tag in found:
        assert state_tag(blocks_of(history.messages[message])[block]) == tag
    history.replace_message(2, {**history.messages[2], "content": blocks_of(history.messages[2])[:1]})
    assert [(m, b) for m, b, _ in history.states.candidates(len(history.messages))] == [(4, 1)]


def test_a_restart_finds_the_same_superseded_blocks():
    engine = engine_with(batch_payoff=1.0)  # deferred: the superseded ones are still there to find
    run(engine, 5)
    rows = [message_row(engine, i) for i in range(len(engine.history.messages))]
    again = ContextEngine(config=engine.config, store=engine.store)
    restore(again, rows, engine_state(engine))
    assert again.history.states.superseded == engine.history.states.superseded != {}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_session_carrying_state_every_turn_costs_less_than_the_baselines_once_superseded(seed):
    messages = environment_every_turn(seed)["messages"]
    cost = {policy: replay_trace("env", messages, policy, 32_000, check=request_problems).cost
            for policy in ("seed", "append-only")}
    ours = replay_trace("env", messages, "default", 32_000, check=request_problems)
    carried = replay_trace("env", messages, "default", 32_000,
                           config=ContextConfig(cache_model="anthropic", supersede_states=False))
    assert ours.invalid_requests == 0
    assert ours.cost < min(cost.values()) * 0.95, (ours.cost, cost)
    assert ours.cost < carried.cost * 0.9, "superseding is what makes the difference"
