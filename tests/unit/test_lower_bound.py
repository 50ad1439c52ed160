"""The lower bound (evaluation/lower_bound.py): below every policy the replay prices, and what it counts."""

from pathlib import Path

import pytest

from agentls.evaluation.hindsight import HINDSIGHT
from agentls.evaluation.lower_bound import Rates, carried_at_least, lower_bound, required_items, result_cap_chars
from agentls.evaluation.model_prices import ModelPrices
from agentls.context.blocks import blocks_of
from agentls.context.tokens import CHARS_PER_TOKEN
from agentls.evaluation.replay import POLICIES, is_call, load_trace, replay_trace
from agentls.evaluation.thinking_ledger import thinking_text
from agentls.evaluation.thinking_replay import Settings, bound_with_thinking, replay_with_thinking
from agentls.evaluation.baselines import POLICIES as MODEL_POLICIES
from synth import assistant_text, results, tool_call, user

SHARED_TRACES = Path(__file__).resolve().parents[3] / "shared" / "traces"
UNITS = Rates.replay_units()


def session(turns: int, body_lines: int = 300, refer_back: bool = True, big_every: int = 0) -> list[dict]:
    """Reads and shell runs; every fifth reply names a symbol only an early result showed."""
    messages = [user("fix the parser bug")]
    for i in range(turns):
        if refer_back and i and i % 5 == 0:
            text = f"step {i}: back to symbol_defined_in_{i - 4:03d} seen earlier"
        else:
            text = f"step {i}"
        call, tool_use_id = tool_call("read_file" if i % 2 else "run_shell",
                                      {"path": f"src/m{i}.py"} if i % 2 else {"command": f"pytest -q -k t{i}"},
                                      text=text)
        lines = body_lines * (40 if big_every and i % big_every == big_every - 1 else 1)
        body = f"def symbol_defined_in_{i:03d}():\n" + f"{i} output line\n" * lines
        messages += [call, results([(tool_use_id, body)])]
    messages.append(assistant_text("fixed"))
    return messages


@pytest.mark.parametrize("window", [32_000, 64_000, 200_000])
@pytest.mark.parametrize("turns,big_every", [(12, 0), (60, 0), (40, 7)])
def test_the_bound_is_below_every_policy_under_both_cache_models(window, turns, big_every):
    messages = session(turns, big_every=big_every)
    bound = lower_bound(messages, window, UNITS).total
    for cache in ("anthropic", "ideal"):
        for policy in POLICIES:
            result = replay_trace("generated", messages, policy, window, cache=cache)
            assert bound <= result.cost, (policy, cache)
            assert bound <= result.cost + result.reread_cost


def test_the_bound_is_below_every_policy_at_a_models_prices_with_thinking():
    messages = session(30, big_every=9)
    for model in ("claude-opus-4-6", "claude-sonnet-5-5"):
        settings = Settings(model)
        for window in (32_000, 200_000):
            bound = bound_with_thinking("generated", messages, window, settings).total
            for policy in MODEL_POLICIES:
                replayed = replay_with_thinking("generated", messages, policy, window, settings)
                assert bound <= replayed.usd, (model, policy)


def test_the_thinking_of_the_tool_call_a_request_answers_is_carried_once_in_it():
    """The docs' rule (thinking-tool-workflows): the thinking comes back with the tool results it led to."""
    messages = session(20)
    settings = Settings("claude-opus-4-6")
    rates = Rates.of_model(ModelPrices.of(settings.model))
    with_thinking = bound_with_thinking("generated", messages, 64_000, settings)
    output = with_thinking.output / rates.output
    without = lower_bound(messages, 64_000, rates, output_tokens=output)
    answering = [i for i in range(1, len(messages)) if is_call(messages, i) and messages[i - 1]["role"] == "assistant"
                 and any(b["type"] == "tool_use" for b in blocks_of(messages[i - 1]))]
    assert answering
    thinking = sum(len(thinking_text("generated", i - 1)) / CHARS_PER_TOKEN for i in answering)
    assert with_thinking.total - without.total == pytest.approx(thinking * rates.input)


def test_keeping_every_reference_costs_more_than_carrying_only_the_newest_turn():
    kept = lower_bound(session(40), 64_000, UNITS)
    newest_only = lower_bound(session(40, refer_back=False), 64_000, UNITS)
    assert kept.requests == newest_only.requests
    assert kept.carried_tokens > newest_only.carried_tokens
    assert kept.total > newest_only.total
    # each referenced result is carried once more, read from the cache at the least
    assert kept.content - newest_only.content >= UNITS.read * (kept.carried_tokens - newest_only.carried_tokens) - 1e-6


def test_an_item_is_written_once_and_read_after_or_sent_once_as_input():
    assert carried_at_least(100, 0, UNITS) == 0
    assert carried_at_least(100, 1, UNITS) == 100 * UNITS.input  # plain input is cheaper than a write
    assert carried_at_least(100, 2, UNITS) == pytest.approx(100 * (UNITS.write + UNITS.read))
    assert carried_at_least(100, 10, UNITS) == pytest.approx(100 * (UNITS.write + 9 * UNITS.read))


def test_the_parts_of_the_bound_system_prompt_output_and_a_huge_result_capped():
    messages = session(10)
    bound = lower_bound(messages, 64_000, UNITS)
    assert bound.requests == 11  # the prompt, then each result
    assert bound.system == pytest.approx(3_000 * (UNITS.write + 10 * UNITS.read))
    assert bound.total == pytest.approx(bound.system + bound.content + bound.output)
    call, tool_use_id = tool_call("run_shell", {"command": "cat big.log"})
    huge = [user("go"), call, results([(tool_use_id, "x" * 400_000)]), assistant_text("done")]
    capped = lower_bound(huge, 32_000, UNITS)
    assert capped.requests == 2 and capped.carried_tokens <= 2 * 3_000 + result_cap_chars(32_000) / 4 + 100


def test_model_rates_are_the_list_prices_per_token():
    rates = Rates.of_model(ModelPrices.of("claude-opus-4-6"))
    assert rates.read < rates.input < rates.write < rates.output


@pytest.mark.skipif(not SHARED_TRACES.is_dir(), reason="../shared/traces is only on the developers' machines")
def test_the_bound_is_below_every_policy_on_a_few_recorded_traces():
    paths = sorted(SHARED_TRACES.glob("*.json"), key=lambda p: p.stat().st_size)[:4]
    for path in paths:
        trace_id, messages = load_trace(str(path))
        bound = lower_bound(messages, 32_000, UNITS).total
        for policy in POLICIES:
            assert bound <= replay_trace(trace_id, messages, policy, 32_000).cost, (trace_id, policy)


def test_compare_prints_the_bound_beside_the_totals(tmp_path):
    import json

    from agentls.evaluation.replay_compare import compare, comparison_json, format_comparison
    from agentls.evaluation.thinking_replay import bounds_with_thinking, compare_with_thinking, format_thinking

    path = tmp_path / "trace.json"
    path.write_text(json.dumps({"id": "generated", "messages": session(20)}))
    [comparison] = compare([str(path)], windows=(32_000,))
    assert comparison.bound == pytest.approx(lower_bound(session(20), 32_000, UNITS).total)
    assert "default / bound" in format_comparison([comparison])
    assert comparison_json([comparison])[0]["lower_bound"] == comparison.bound
    settings = Settings("claude-opus-4-6")
    runs = compare_with_thinking([str(path)], settings, windows=(32_000,), policies=("agentls", "append-only"))
    bounds = bounds_with_thinking([str(path)], settings, windows=(32_000,))
    assert bounds[32_000] <= runs[32_000]["agentls"][0].usd
    assert "agentls / bound" in format_thinking(runs, settings, bounds)


# issue 31's own bound (kept=True): a reference is carried from its arrival to its last use, the task always


def test_a_kept_reference_is_carried_from_its_arrival_to_its_last_use_and_the_task_in_every_request():
    messages = session(12)
    requests, sizes, counts = required_items(messages, 64_000, kept=True)
    _, _, named_only = required_items(messages, 64_000)
    first_result = messages[2]["content"][0]["tool_use_id"]  # arrives with request 1 (0: the prompt)
    # result i arrives with request i + 1, answered by step i + 1; step 5 (the reply to request 5) names
    # symbol_defined_in_001, which result 1 (request 2) showed: kept, it is carried in requests 2..5
    second = messages[4]["content"][0]["tool_use_id"]
    assert counts[("result", second)] == 4 and named_only[("result", second)] == 2
    assert counts[("result", first_result)] == named_only[("result", first_result)] == 1  # never named again
    assert counts[("block", 0, 0)] == requests == 13 and named_only[("block", 0, 0)] == 1
    assert sizes[("block", 0, 0)] == pytest.approx(len("fix the parser bug") / 4)


@pytest.mark.parametrize("turns,big_every", [(12, 0), (60, 0), (40, 7)])
def test_the_kept_bound_is_above_the_plain_one_and_below_sending_everything(turns, big_every):
    messages = session(turns, big_every=big_every)
    for window in (32_000, 200_000):
        kept, plain = (lower_bound(messages, window, UNITS, kept=k).total for k in (True, False))
        assert kept > plain
    # sending everything keeps every reference from its arrival on
    for cache in ("anthropic", "ideal"):
        everything = replay_trace("generated", messages, "none", 200_000, cache=cache)
        assert everything.recall == 1.0
        assert lower_bound(messages, 200_000, UNITS, kept=True).total <= everything.cost


def test_the_kept_bound_is_below_the_hindsight_oracle_at_a_models_prices():
    messages = session(40, big_every=7)
    settings = Settings("claude-opus-4-6")
    for window in (32_000, 64_000, 200_000):
        bound = bound_with_thinking("generated", messages, window, settings, kept=True).total
        oracle = replay_with_thinking("generated", messages, HINDSIGHT, window, settings)
        if oracle.recall == 1.0:  # it keeps every reference (at 32K the kept ones may not all fit)
            assert bound <= oracle.usd, window


@pytest.mark.skipif(not SHARED_TRACES.is_dir(), reason="../shared/traces is only on the developers' machines")
def test_the_kept_bound_reproduces_the_issues_figure_on_the_shared_traces():
    # issue 31: "an honest lower bound (every later reference kept, ...) is 5.85M at 64K", replies left out
    prompts = 0.0
    for path in sorted(SHARED_TRACES.glob("*.json")):
        bound = lower_bound(load_trace(str(path))[1], 64_000, UNITS, kept=True)
        prompts += bound.total - bound.output
    assert prompts == pytest.approx(5.85e6, rel=0.02)


def test_compare_prints_the_issues_bound_beside_the_totals(tmp_path):
    import json

    from agentls.evaluation.replay_compare import compare, comparison_json, format_comparison
    from agentls.evaluation.thinking_replay import (compare_with_thinking, format_thinking,
                                                    kept_bounds_with_thinking)

    path = tmp_path / "trace.json"
    path.write_text(json.dumps({"id": "generated", "messages": session(20)}))
    [comparison] = compare([str(path)], windows=(64_000,))
    kept = lower_bound(session(20), 64_000, UNITS, kept=True)
    assert comparison.kept_bound == pytest.approx(kept.total)
    assert comparison.kept_bound_prompts == pytest.approx(kept.total - kept.output)
    printed = format_comparison([comparison])
    assert "bound-kept" in printed and "default / it" in printed and "without the replies" in printed
    assert comparison_json([comparison])[0]["lower_bound_kept"] == comparison.kept_bound
    settings = Settings("claude-opus-4-6")
    runs = compare_with_thinking([str(path)], settings, windows=(64_000,), policies=("agentls", "append-only"))
    kept_bounds = kept_bounds_with_thinking([str(path)], settings, windows=(64_000,))
    assert kept_bounds[64_000][1] < kept_bounds[64_000][0] <= runs[64_000]["append-only"][0].usd
    assert "agentls / it" in format_thinking(runs, settings, kept_bounds=kept_bounds)
