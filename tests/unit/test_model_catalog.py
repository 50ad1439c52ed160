"""The model catalog: the default-model rule, the choice of the answering model, working windows,
parsing the Models API, and the cache per endpoint (against the mock's Models API, real SDK)."""

from __future__ import annotations

import asyncio
import socket

import pytest

from agentls.demo.brain import demo_reply
from agentls.mock_api import MockAnthropicServer, mock_model
from agentls.model import ModelSettings
from agentls.model.catalog import (
    DEFAULT_WORKING_WINDOW,
    ENDPOINT,
    FALLBACK,
    FALLBACK_CATALOG,
    FALLBACK_MODELS,
    OFFLINE_DEFAULT_MODEL,
    Catalog,
    ModelInfo,
    choose_model,
    default_model,
    working_window,
)
from agentls.model.models_api import ModelCatalog, endpoint_key, fetch_catalog, parse_model
from agentls.model.pricing import CostTracker
from agentls.model.response import Usage
from agentls.lsp import protocol

SECRET = "sk-ant-catalog-SECRET-42"


def m(model_id: str, created: str = "", *, line: str | None = None, lifecycle: str = "active") -> ModelInfo:
    return ModelInfo(model_id, created_at=created, line=line, lifecycle=lifecycle)


# ---------------------------------------------------------------- the default-model rule

def test_default_is_the_newest_active_balanced_model():
    models = [m("claude-opus-9", "2027-03-01"), m("claude-sonnet-8", "2027-01-01"),
              m("claude-sonnet-9", "2027-02-01"), m("claude-haiku-9", "2027-04-01")]
    assert default_model(models) == "claude-sonnet-9"


def test_the_endpoints_line_wins_over_the_id():
    models = [m("house-fast", "2027-01-01", line="haiku"), m("house-balanced", "2026-01-01", line="sonnet"),
              m("sonnet-lookalike", "2027-06-01", line="opus")]
    assert default_model(models) == "house-balanced"


def test_without_a_balanced_model_the_newest_active_one():
    models = [m("acme-large", "2026-05-01"), m("acme-small", "2026-09-01"),
              m("acme-sonnet-old", "2025-01-01", lifecycle="deprecated")]
    assert default_model(models) == "acme-small"


def test_only_deprecated_models_give_the_newest_of_them_and_ties_keep_the_list_order():
    assert default_model([m("a", "2026-01-01", lifecycle="deprecated"),
                          m("b", "2026-02-01", lifecycle="deprecated")]) == "b"
    assert default_model([m("first"), m("second")]) == "first"  # undated: the API lists newest first
    assert default_model([]) is None


def test_the_offline_default_comes_from_the_fallback_table_by_the_same_rule():
    assert OFFLINE_DEFAULT_MODEL == default_model(FALLBACK_CATALOG.models)
    assert FALLBACK_CATALOG.get(OFFLINE_DEFAULT_MODEL).in_line("sonnet")


# ---------------------------------------------------------------- choosing the answering model

LISTED = Catalog((ModelInfo("acme-sonnet-7", created_at="2027-01-01", max_input_tokens=750_000),
                  ModelInfo("acme-opus-7-20270101", created_at="2027-01-01")), ENDPOINT, endpoint="api.acme.test")


def test_a_listed_model_is_used_and_an_alias_of_a_snapshot_counts_as_listed():
    assert choose_model("acme-sonnet-7", LISTED).model == "acme-sonnet-7"
    alias = choose_model("acme-opus-7", LISTED)
    assert alias.model == "acme-opus-7" and alias.info.id == "acme-opus-7-20270101" and not alias.warning


def test_an_unlisted_configured_model_is_replaced_by_the_default_with_a_warning():
    choice = choose_model("claude-opus-4-1", LISTED, "agentls.model")
    assert choice.model == "acme-sonnet-7" and choice.configured == "claude-opus-4-1"
    assert "claude-opus-4-1" in choice.warning and "agentls.model" in choice.warning
    assert "api.acme.test" in choice.warning and "acme-sonnet-7" in choice.warning


def test_without_a_list_any_configured_id_is_used_as_is():
    choice = choose_model("my-proxy/any-id", FALLBACK_CATALOG)
    assert (choice.model, choice.info, choice.warning) == ("my-proxy/any-id", None, "")
    assert choose_model(None, FALLBACK_CATALOG).model == OFFLINE_DEFAULT_MODEL


# ---------------------------------------------------------------- working windows

def test_the_working_window_defaults_to_at_most_200k_and_never_exceeds_the_model():
    million = ModelInfo("big", max_input_tokens=1_000_000)
    small = ModelInfo("small", max_input_tokens=128_000)
    assert working_window(million, None) == DEFAULT_WORKING_WINDOW == 200_000
    assert working_window(small, None) == 128_000
    assert working_window(million, 600_000) == 600_000
    assert working_window(small, 600_000) == 128_000
    assert working_window(None, None) == 200_000 and working_window(None, 64_000) == 64_000


# ---------------------------------------------------------------- the Models API

def test_parse_reads_windows_limits_and_capabilities():
    info = parse_model(mock_model("acme-x", window=750_000, max_tokens=32_000, thinking=("adaptive", "disabled"),
                                  efforts=("low", "max"), line="sonnet"))
    assert (info.max_input_tokens, info.max_tokens, info.line) == (750_000, 32_000, "sonnet")
    assert info.thinking_types == {"adaptive", "disabled"} and info.efforts == ("low", "max")
    assert info.thinking == "adaptive"
    bare = parse_model({"id": "bare", "capabilities": None, "max_tokens": "lots"})
    assert bare.thinking == "none" and bare.max_tokens is None and bare.max_input_tokens is None
    assert parse_model({"display_name": "no id"}) is None
    assert not info.compaction and info.context_editing == frozenset()


def test_parse_reads_compaction_and_context_editing_capabilities():
    raw = mock_model("acme-y")
    raw["capabilities"]["compaction"] = {"supported": True, "summarize": {"supported": True}}
    raw["capabilities"]["context_management"] = {
        "supported": True, "clear_tool_uses_20250919": {"supported": True},
        "clear_thinking_20251015": {"supported": True}, "compact_20260112": {"supported": False}}
    info = parse_model(raw)
    assert info.compaction
    assert info.context_editing == {"clear_tool_uses_20250919", "clear_thinking_20251015"}
    raw["capabilities"]["compaction"] = {"supported": True, "summarize": {"supported": False}}
    assert not parse_model(raw).compaction


async def test_every_page_is_read_through_the_sdk():
    models = [mock_model(f"acme-{i:02d}", window=1000 * (i + 1)) for i in range(45)]
    async with MockAnthropicServer(models=models, responder=demo_reply) as api:
        catalog = await fetch_catalog(ModelSettings(base_url=api.base_url, api_key=SECRET))
        pages = [r for r in api.requests if r.path == "/v1/models"]
    assert catalog.source == ENDPOINT and catalog.ids == [f"acme-{i:02d}" for i in range(45)]
    assert len(pages) == 3 and pages[1].body == {"after_id": ["acme-19"]}
    assert catalog.get("acme-44").max_input_tokens == 45_000


async def test_an_endpoint_without_a_models_api_falls_back_and_says_why():
    async with MockAnthropicServer(responder=demo_reply) as api:
        catalog = await fetch_catalog(ModelSettings(base_url=api.base_url, api_key=SECRET))
    assert catalog.source == FALLBACK and "no Models API" in catalog.note and catalog.models


async def test_an_endpoint_that_cannot_be_reached_is_said_so_not_that_it_lists_no_models():
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    catalog = await fetch_catalog(ModelSettings(base_url=f"http://127.0.0.1:{port}", api_key=SECRET))
    assert catalog.source == FALLBACK and catalog.models
    assert "127.0.0.1 could not be reached" in catalog.note and "lists no models" not in catalog.note
    assert SECRET not in catalog.note


def test_the_cache_key_is_the_endpoint_and_a_fingerprint_never_the_key():
    key = endpoint_key(ModelSettings(base_url="http://127.0.0.1:1/", api_key=SECRET))
    assert key[0] == "http://127.0.0.1:1" and SECRET not in repr(key) and len(key[1]) == 16
    assert key != endpoint_key(ModelSettings(base_url="http://127.0.0.1:1/", api_key=SECRET + "x"))


async def test_the_catalog_is_cached_per_endpoint_for_its_ttl():
    now = [0.0]
    fetched: list[str] = []
    arrived = asyncio.Event()

    async def fetch(settings: ModelSettings) -> Catalog:
        fetched.append(settings.resolved_base_url())
        return Catalog((ModelInfo(f"model-{len(fetched)}"),), ENDPOINT)

    catalog = ModelCatalog(lambda _c: arrived.set(), ttl=60, clock=lambda: now[0], fetch=fetch)
    first = ModelSettings(base_url="http://one.test", api_key=SECRET)
    catalog.refresh(first)
    assert catalog.current(first) is None and catalog.fetching(first)
    assert (await catalog.wait(first, 5)).ids == ["model-1"] and arrived.is_set()
    catalog.refresh(first)  # fresh: no new fetch
    assert not catalog.fetching(first) and fetched == ["http://one.test"]
    now[0] = 61.0
    catalog.refresh(first)  # stale: fetched again, the old list answers meanwhile
    assert catalog.current(first).ids == ["model-1"]
    assert (await catalog.wait(first, 5)).ids == ["model-2"]
    other = ModelSettings(base_url="http://two.test", api_key=SECRET)
    catalog.refresh(other)
    assert (await catalog.wait(other, 5)).ids == ["model-3"] and catalog.current(first).ids == ["model-2"]


async def test_a_broken_fetch_gives_the_fallback():
    async def fetch(settings: ModelSettings) -> Catalog:
        raise RuntimeError("boom")

    catalog = ModelCatalog(fetch=fetch)
    settings = ModelSettings(base_url="http://broken.test", api_key=SECRET)
    catalog.refresh(settings)
    assert (await catalog.wait(settings, 5)).source == FALLBACK


def test_retarget_names_and_prices_the_new_model_and_keeps_the_totals():
    costs = CostTracker("claude-sonnet-5-5")
    costs.add("claude-sonnet-5-5", Usage(input_tokens=1_000_000))
    costs.retarget("my-model", {"my-model": {"input": 1.0}})
    costs.add("my-model", Usage(input_tokens=1_000_000))
    assert protocol.cost(costs.report())["model"] == "my-model"
    assert protocol.cost(costs.report())["usd"] == pytest.approx(2.0 + 1.0)


def test_the_fallback_table_states_the_documented_server_side_capabilities():
    edits = {"clear_tool_uses_20250919", "clear_thinking_20251015"}
    table = {m.id: m for m in FALLBACK_MODELS}
    assert table["claude-sonnet-5-5"].compaction and table["claude-opus-5-5"].compaction
    assert not table["claude-haiku-5-5"].compaction and not table["claude-haiku-4-5"].compaction
    assert all(m.context_editing == edits for m in FALLBACK_MODELS)
