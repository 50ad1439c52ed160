import pytest

from agentls.context import ContextConfig, ContextEngine, History, MemoryStore, validate_request
from agentls.context.structure import request_problems
from agentls.context.tokens import Usage
from synth import assistant_text, read_turn, results, tool_call, tool_calls, user


def test_index_answers_which_tool_produced_a_result_without_rescanning():
    engine = ContextEngine()
    engine.append(user("look at a.py"))
    tool_use_id = read_turn(engine, "a.py", "print(1)\n")
    record = engine.history.records[tool_use_id]
    assert (record.name, record.path_or_command, record.use_msg, record.result_msg) == ("read_file", "a.py", 1, 2)
    assert record.key == "read_file\x00a.py"
    assert engine.history.results == [tool_use_id]


@pytest.mark.parametrize("bad", [
    [assistant_text("hi")],
    [user("a"), user("b")],
])
def test_history_refuses_broken_order(bad):
    history = History()
    with pytest.raises(ValueError):
        for message in bad:
            history.append(message)


def test_history_refuses_results_that_answer_nothing_and_missing_results():
    history = History()
    history.append(user("go"))
    call, tool_use_id = tool_call("read_file", {"path": "a"})
    history.append(call)
    with pytest.raises(ValueError, match="without result"):
        history.append(user("no results"))
    with pytest.raises(ValueError, match="without tool_use"):
        history.append(results([(tool_use_id, "x"), ("toolu_other", "y")]))


def test_rewrite_is_copy_on_write_and_sticky():
    engine = ContextEngine()
    engine.append(user("go"))
    tool_use_id = read_turn(engine, "a.py", "x" * 1000)
    handed_out = list(engine.history.messages)
    engine.history.rewrite_result(tool_use_id, "[gone]", "cleared")
    assert handed_out[2]["content"][0]["content"] == "x" * 1000  # an earlier request never changes
    assert engine.history.messages[2]["content"][0]["content"] == "[gone]"
    with pytest.raises(ValueError, match="already rewritten"):
        engine.history.rewrite_result(tool_use_id, "[again]", "cleared")


def test_token_anchor_counts_cache_tokens_and_estimates_what_came_since():
    config = ContextConfig(window=100_000, output_reserve=0, system_tokens=0)
    engine = ContextEngine(config=config)
    engine.append(user("go"))
    estimate_at_call = engine.raw_estimate
    # With caching on, input_tokens alone is tiny: the real prompt is the sum.
    engine.record_usage(Usage(input_tokens=10, cache_creation_input_tokens=2_000,
                              cache_read_input_tokens=40_000), now=0.0)
    assert engine.estimate() == 42_010
    call, tool_use_id = tool_call("read_file", {"path": "big.txt"})
    engine.append(call)
    engine.append(results([(tool_use_id, "y" * 40_000)]))  # ~10K tokens appended since the call
    grown = engine.estimate() - 42_010
    assert 10_000 <= grown <= 10_100
    assert engine.utilization() == pytest.approx(engine.estimate() / 100_000)
    assert estimate_at_call < 10


def test_structure_checker_finds_orphans():
    call, ids = tool_calls([("read_file", {"path": "a"}), ("read_file", {"path": "b"})])
    good = [user("go"), call, results([(ids[0], "a"), (ids[1], "b")])]
    assert request_problems(good) == []
    validate_request(good)
    orphan_result = [user("summary"), {"role": "assistant", "content": "ok"}, results([(ids[0], "a")])]
    assert any("answers no tool_use" in p for p in request_problems(orphan_result))
    missing = [user("go"), call, results([(ids[0], "a")])]
    assert any("has no tool_result" in p for p in request_problems(missing))


def test_memory_store_first_write_wins():
    store = MemoryStore()
    store.put("context://toolu_1", "full text ✓")
    store.put("context://toolu_1", "a second write never replaces the first")
    assert store.get("context://toolu_1") == "full text ✓" and store.get("context://x") is None
