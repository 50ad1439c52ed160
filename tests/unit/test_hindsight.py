"""The hindsight oracle (evaluation/hindsight.py): issue 31's "honest lower bound" on a model without bound
thinking. It keeps every later reference, sends valid requests, rewrites only when its schedule says it pays,
and is printed beside the totals of `agentls replay --model` (never where the model binds thinking)."""

import json

import pytest

from agentls.evaluation.hindsight import CLEARED, HindsightBaseline, plan
from agentls.evaluation.lower_bound import Rates
from agentls.evaluation.model_prices import ModelPrices
from agentls.evaluation.replay import SYSTEM_TOKENS, is_call
from agentls.evaluation.thinking_replay import (Settings, compare_with_thinking, format_thinking,
                                                oracles_with_thinking, replay_with_thinking, thinking_json)
from agentls.mock_api.validation import request_error
from synth import assistant_text, results, tool_call, user

OPUS_46 = Settings("claude-opus-4-6")  # no bound thinking
RATES = Rates.of_model(ModelPrices.of(OPUS_46.model))


def session(turns: int, lines: int, refer_every: int = 5) -> list[dict]:
    """Shell runs and reads; every `refer_every`th reply names a symbol only the result four steps back showed."""
    messages = [user("fix the parser bug")]
    for i in range(turns):
        text = f"back to symbol_{i - 4:03d}" if refer_every and i >= 4 and i % refer_every == 0 else f"step {i}"
        call, tool_use_id = tool_call("run_shell", {"command": f"pytest -q -k t{i}"}, text=text)
        messages += [call, results([(tool_use_id, f"symbol_{i:03d} defined\n" + f"{i} output line\n" * lines)])]
    return [*messages, assistant_text("fixed")]


def requests_of(messages: list[dict], window: int) -> list[list[dict]]:
    oracle = HindsightBaseline(messages, window, RATES, SYSTEM_TOKENS)
    sent = []
    for index, message in enumerate(messages):
        oracle.append(message)
        if is_call(messages, index):
            sent.append(oracle.prepare(index * 10.0).sent)
    return sent


@pytest.mark.parametrize("window", [32_000, 200_000])
def test_every_request_is_valid_and_keeps_every_result_a_later_reply_names(window):
    messages = session(40, lines=60)
    for request in requests_of(messages, window):
        assert request_error({"model": "m", "max_tokens": 10, "messages": request}) is None
    result = replay_with_thinking("generated", messages, "hindsight", window, OPUS_46)
    assert result.references > 0 and result.recall == 1.0
    assert result.over_window == 0


def test_a_long_session_clears_what_no_reply_needs_and_pays_less_than_keeping_it():
    messages = session(60, lines=400)
    last = requests_of(messages, 200_000)[-1]
    cleared = [b for m in last for b in m["content"] if isinstance(m["content"], list)
               and b.get("type") == "tool_result" and b["content"] == CLEARED]
    assert len(cleared) > 20
    oracle = replay_with_thinking("generated", messages, "hindsight", 200_000, OPUS_46)
    append_only = replay_with_thinking("generated", messages, "append-only", 200_000, OPUS_46)
    assert oracle.usd < append_only.usd and oracle.recall == 1.0


def test_a_short_session_is_never_rewritten():
    """Clearing small results in a short session saves less than the re-write costs: the schedule keeps
    the first request's prompt and appends to it."""
    messages = session(8, lines=3)
    schedule = plan(messages, 200_000, RATES, SYSTEM_TOKENS)
    assert schedule.rewrites == schedule.calls[:1]
    sent = requests_of(messages, 200_000)
    for before, after in zip(sent, sent[1:]):
        assert after[:len(before)] == before  # each request extends the previous one


def test_printed_beside_the_totals_only_where_thinking_is_not_bound(tmp_path):
    path = tmp_path / "trace.json"
    path.write_text(json.dumps({"id": "generated", "messages": session(20, lines=80)}))
    runs = compare_with_thinking([str(path)], OPUS_46, windows=(32_000,), policies=("agentls", "append-only"))
    oracles = oracles_with_thinking([str(path)], OPUS_46, windows=(32_000,))
    assert "agentls / oracle" in format_thinking(runs, OPUS_46, oracles=oracles)
    assert thinking_json(runs, OPUS_46, oracles=oracles)["windows"][0]["hindsight"]["usd"] == oracles[32_000].usd
    assert oracles_with_thinking([str(path)], Settings("claude-sonnet-5-5"), windows=(32_000,)) == {}
