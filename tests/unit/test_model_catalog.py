"""The model catalog (agent/models) and a cost tracker that follows a model change."""

from agentls.model.catalog import KNOWN_MODELS, describe, window_for
from agentls.model.pricing import CostTracker
from agentls.model.response import Usage
from agentls.model.settings import DEFAULT_MODEL
from agentls.lsp import protocol


def test_the_default_model_is_known_and_windows_follow_the_name():
    assert KNOWN_MODELS[0].id == DEFAULT_MODEL
    assert window_for("claude-haiku-4-5") == 200_000
    assert window_for("deepseek-chat") == 128_000
    assert window_for("some-proxy/model") == 200_000


def test_describe_prices_from_the_pricing_table():
    opus = next(m for m in KNOWN_MODELS if m.id == "claude-opus-4-1")
    info = describe(opus)
    assert (info["inputPerMTok"], info["outputPerMTok"], info["cacheReadPerMTok"]) == (15.0, 75.0, 1.5)


def test_retarget_names_and_prices_the_new_model_and_keeps_the_totals():
    costs = CostTracker("claude-sonnet-5-5")
    costs.add("claude-sonnet-5-5", Usage(input_tokens=1_000_000))
    costs.retarget("my-model", {"my-model": {"input": 1.0}})
    costs.add("my-model", Usage(input_tokens=1_000_000))
    assert protocol.cost(costs.report())["model"] == "my-model"
    assert protocol.cost(costs.report())["usd"] == 3.0 + 1.0
