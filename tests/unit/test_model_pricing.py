"""Prices per model id, unknown models (price unknown, never another model's), overrides, the agent/cost shape."""

from __future__ import annotations

import pytest

from agentls.model import CostTracker, Usage, cost_usd, price_for
from agentls.model.pricing import DEFAULT_MIN_CACHEABLE_TOKENS, Price, cache_multipliers, min_cacheable_tokens
from agentls.lsp import protocol

MILLION = 1_000_000


@pytest.mark.parametrize("model, input_price, output_price", [
    ("claude-sonnet-4-5", 3.0, 15.0),
    ("claude-sonnet-4-5-20250929", 3.0, 15.0),
    ("claude-sonnet-5-5", 2.0, 10.0),
    ("claude-opus-4-1", 15.0, 75.0),
    ("claude-opus-4-20250514", 15.0, 75.0),
    ("claude-opus-4-5", 5.0, 25.0),
    ("claude-opus-5-5", 4.0, 20.0),
    ("claude-haiku-4-5", 1.0, 5.0),
    ("claude-haiku-5-5", 0.10, 0.50),
    ("claude-3-5-haiku-latest", 0.8, 4.0),
    ("claude-3-haiku-20240307", 0.25, 1.25),
])
def test_list_prices_by_model_id(model, input_price, output_price):
    price = price_for(model)
    assert price is not None and (price.input, price.output) == (input_price, output_price)


@pytest.mark.parametrize("model", ["some-unknown-model", "deepseek-chat", "claude-sonnet-7", "claude-opus-5-5-x",
                                   "acme-adaptive-3", "claude-sonnet-5-5-2026"])
def test_a_model_the_table_does_not_name_has_no_price(model):
    """Never another model's price: a newer Sonnet is not priced like the one the table knows."""
    assert price_for(model) is None
    assert cost_usd(model, Usage(input_tokens=MILLION, output_tokens=MILLION)) is None


def test_unknown_models_count_tokens_but_not_dollars():
    tracker = CostTracker("acme-adaptive-3")
    assert tracker.add("acme-adaptive-3", Usage(input_tokens=MILLION, output_tokens=10)) is None
    tracker.add("claude-haiku-4-5", Usage(input_tokens=MILLION))
    result = protocol.cost(tracker.report())
    assert result["unpricedModels"] == ["acme-adaptive-3"]
    assert result["inputTokens"] == 2 * MILLION and result["requests"] == 2
    assert result["usd"] == pytest.approx(1.0)  # only the priced model's requests
    priced = CostTracker("acme-adaptive-3", {"acme": {"input": 2.0, "output": 8.0}})
    priced.add("acme-adaptive-3", Usage(input_tokens=MILLION, cache_read_input_tokens=MILLION))
    assert protocol.cost(priced.report())["unpricedModels"] == [] and priced.usd == pytest.approx(2.0 + 0.2)


def test_haiku_5_5_is_priced_by_prompt_size():
    small = Usage(input_tokens=100_000, output_tokens=MILLION)
    large = Usage(input_tokens=50_000, cache_read_input_tokens=50_001, output_tokens=MILLION)
    assert cost_usd("claude-haiku-5-5", small) == pytest.approx(0.10 * 0.1 + 0.50)
    assert cost_usd("claude-haiku-5-5", large) == pytest.approx(0.50 * 0.05 + 0.05 * 0.050001 + 2.50)


def test_cost_counts_all_four_token_kinds():
    usage = Usage(input_tokens=MILLION, output_tokens=MILLION, cache_creation_input_tokens=MILLION,
                  cache_read_input_tokens=MILLION)
    assert cost_usd("claude-sonnet-4-5", usage) == pytest.approx(3 + 15 + 3.75 + 0.30)


def test_overrides_win_and_default_covers_unknown_models():
    overrides = {"sonnet": {"input": 1.0}, "default": {"output": 99.0}}
    assert price_for("claude-sonnet-4-5", overrides).input == 1.0
    assert price_for("claude-sonnet-4-5", overrides).output == 15.0
    assert price_for("mystery", overrides).output == 99.0
    assert price_for("claude-haiku-4-5", overrides).output == 5.0


def test_one_hour_cache_writes_cost_twice_the_input_price():
    hour = Usage(cache_creation_input_tokens=MILLION, cache_write_1h_tokens=MILLION)
    five = Usage(cache_creation_input_tokens=MILLION)
    assert cost_usd("claude-sonnet-4-5", hour) == pytest.approx(6.0)
    assert cost_usd("claude-sonnet-4-5", five) == pytest.approx(3.75)
    mixed = Usage(cache_creation_input_tokens=2 * MILLION, cache_write_1h_tokens=MILLION)
    assert cost_usd("claude-haiku-4-5", mixed) == pytest.approx(2.0 + 1.25)
    assert cost_usd("x", hour, {"x": {"cache_write_1h": 9}}) == pytest.approx(9.0)
    assert Usage.from_api({"cache_creation_input_tokens": 7,
                           "cache_creation": {"ephemeral_5m_input_tokens": 3, "ephemeral_1h_input_tokens": 4}}
                          ).cache_write_1h_tokens == 4


def test_tracker_accumulates_and_matches_protocol_shape():
    tracker = CostTracker("claude-sonnet-4-5")
    tracker.add("claude-sonnet-4-5", Usage(10, 20, 30, 40))
    tracker.add("claude-haiku-4-5", Usage(1, 2, 3, 4))
    result = protocol.cost(tracker.report())
    assert set(result) == {"model", "requests", "inputTokens", "outputTokens", "cacheReadTokens",
                           "cacheWriteTokens", "cacheWrite1hTokens", "cacheTtl", "usd", "unpricedModels", "subagents"}
    assert result["model"] == "claude-sonnet-4-5" and result["requests"] == 2
    assert (result["inputTokens"], result["outputTokens"]) == (11, 22)
    assert (result["cacheWriteTokens"], result["cacheReadTokens"]) == (33, 44)
    assert result["usd"] == pytest.approx(cost_usd("claude-sonnet-4-5", Usage(10, 20, 30, 40))
                                          + cost_usd("claude-haiku-4-5", Usage(1, 2, 3, 4)), abs=1e-6)
    assert set(tracker.by_model()) == {"claude-sonnet-4-5", "claude-haiku-4-5"}
    tracker.reset()
    assert protocol.cost(tracker.report())["requests"] == 0


# ---------------------------------------------------------------- cache prices and the minimum cacheable prompt

@pytest.mark.parametrize("model, read, write_5m, write_1h", [
    ("claude-opus-5-5", 0.05, 1.25, 2.0),
    ("claude-sonnet-5-5", 0.05, 1.25, 2.0),
    ("claude-sonnet-5-5-20260928", 0.05, 1.25, 2.0),
    ("claude-fable-5-1", 0.025, 1.25, 2.0),
    ("claude-mythos-5-1", 0.025, 1.25, 2.0),
    ("claude-fable-5-2", 0.025, 1.25, 2.0),
    ("claude-mythos-5-2", 0.025, 1.25, 2.0),
    ("claude-fable-5", 0.1, 1.25, 2.0),
    ("claude-mythos-5", 0.1, 1.25, 2.0),
    ("claude-opus-5", 0.1, 1.25, 2.0),
    ("claude-sonnet-5", 0.1, 1.25, 2.0),
    ("claude-haiku-5-5", 0.1, 1.25, 2.0),
    ("claude-haiku-4-5", 0.1, 1.25, 2.0),
    ("claude-opus-4-1", 0.1, 1.25, 2.0),
])
def test_cache_multipliers_per_documented_model(model, read, write_5m, write_1h):
    assert cache_multipliers(model) == pytest.approx((read, write_5m, write_1h))


def test_cache_multipliers_of_unknown_or_free_models_and_overrides():
    assert cache_multipliers("acme-large") is None
    assert cache_multipliers("acme-large", {"acme": {"input": 2.0}}) == pytest.approx((0.1, 1.25, 2.0))
    assert cache_multipliers("claude-opus-5-5", {"opus-5-5": {"cache_read": 0.4}}) == pytest.approx((0.1, 1.25, 2.0))
    assert cache_multipliers("free", {"free": {"input": 0.0}}) is None


def test_the_5_5_and_5_x_list_prices():
    assert price_for("claude-sonnet-5-5") == Price(2.0, 10.0, 2.50, 0.10, 4.0)
    assert price_for("claude-opus-5-5") == Price(4.0, 20.0, 5.0, 0.20, 8.0)
    assert price_for("claude-fable-5-1") == price_for("claude-mythos-5-1") == Price(10.0, 50.0, 12.50, 0.25, 20.0)
    assert price_for("claude-fable-5-2") == Price(8.0, 40.0, 10.0, 0.20, 16.0)
    haiku = price_for("claude-haiku-5-5")
    assert haiku.for_prompt(100_000) == Price(0.10, 0.50, 0.125, 0.01, 0.20, long_prompt=haiku.long_prompt,
                                              long_prompt_over=100_000)
    assert haiku.for_prompt(100_001) == Price(0.50, 2.50, 0.625, 0.05, 1.0)


def test_sonnet_5_5_cache_reads_cost_half_of_sonnet_5s():
    reads = Usage(cache_read_input_tokens=MILLION)
    assert cost_usd("claude-sonnet-5-5", reads) == pytest.approx(0.10)
    assert cost_usd("claude-sonnet-5", reads) == pytest.approx(0.20)


@pytest.mark.parametrize("model, tokens", [
    ("claude-opus-5-5", 512), ("claude-opus-5", 512), ("claude-sonnet-5-5", 512), ("claude-haiku-5-5", 512),
    ("claude-fable-5-1", 512), ("claude-mythos-5", 512), ("claude-opus-5-5-20260901", 512),
    ("claude-opus-4-8", 1024), ("claude-sonnet-5", 1024), ("claude-sonnet-4-5", 1024), ("claude-opus-4-1", 1024),
    ("claude-opus-4-7", 2048), ("claude-3-5-haiku-latest", 2048),
    ("claude-opus-4-6", 4096), ("claude-opus-4-5", 4096), ("claude-haiku-4-5", 4096),
])
def test_min_cacheable_tokens_per_documented_model(model, tokens):
    assert min_cacheable_tokens(model) == tokens


def test_min_cacheable_tokens_of_a_model_the_docs_do_not_name_is_the_stated_default():
    assert DEFAULT_MIN_CACHEABLE_TOKENS == 1024
    assert min_cacheable_tokens("acme-large") == min_cacheable_tokens("claude-fable-5-2") == 1024
