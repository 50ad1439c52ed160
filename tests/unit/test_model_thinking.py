"""The thinking setting → the request's thinking / output_config, from what the model advertises."""

from __future__ import annotations

import pytest

from agentls.model.catalog import ModelInfo
from agentls.model.thinking import DEFAULT_THINKING_BUDGET, MIN_THINKING_BUDGET, thinking_request

ADAPTIVE_ONLY = ModelInfo("acme-adaptive", thinking_types=frozenset({"adaptive"}), efforts=("low", "high"))
ADAPTIVE_BETWEEN = ModelInfo("acme-between", thinking_types=frozenset({"adaptive", "between_tools"}))
MANUAL_ONLY = ModelInfo("acme-manual", max_tokens=64_000, thinking_types=frozenset({"enabled", "disabled"}))
NONE = ModelInfo("acme-none", thinking_types=frozenset({"disabled"}))


def test_auto_sends_adaptive_to_an_adaptive_model_and_never_a_budget():
    plan = thinking_request("auto", ADAPTIVE_ONLY, max_tokens=8192, budget=5000)
    assert plan.kind == "adaptive" and plan.thinking == {"type": "adaptive", "display": "summarized"}
    assert plan.output_config is None and plan.max_tokens == 8192 and not plan.note


def test_auto_sends_a_manual_budget_to_a_manual_only_model_with_room_for_the_answer():
    plan = thinking_request("auto", MANUAL_ONLY, max_tokens=2000, max_output=MANUAL_ONLY.max_tokens)
    assert plan.thinking == {"type": "enabled", "budget_tokens": DEFAULT_THINKING_BUDGET}
    assert plan.max_tokens == DEFAULT_THINKING_BUDGET + MIN_THINKING_BUDGET
    custom = thinking_request("auto", MANUAL_ONLY, max_tokens=20_000, budget=500)
    assert custom.thinking["budget_tokens"] == MIN_THINKING_BUDGET and custom.max_tokens == 20_000


def test_a_budget_is_shrunk_to_the_models_output_limit_or_dropped():
    plan = thinking_request("auto", MANUAL_ONLY, max_tokens=3000, budget=10_000, max_output=4096)
    assert plan.thinking["budget_tokens"] == 4096 - MIN_THINKING_BUDGET and plan.max_tokens == 4096
    none = thinking_request("auto", MANUAL_ONLY, max_tokens=1500, max_output=1500)
    assert none.kind == "none" and none.thinking is None and "too few output tokens" in none.note


def test_nothing_for_a_model_without_thinking_or_one_no_catalog_describes():
    assert thinking_request("auto", NONE, max_tokens=100).thinking is None
    unknown = thinking_request("auto", None, max_tokens=100, budget=2000)
    assert unknown.kind == "none" and unknown.thinking is None and unknown.output_config is None


def test_an_advertised_effort_level_goes_in_output_config():
    plan = thinking_request("high", ADAPTIVE_ONLY, max_tokens=8192)
    assert plan.thinking["type"] == "adaptive" and plan.output_config == {"effort": "high"}


@pytest.mark.parametrize("info, kind", [(ADAPTIVE_ONLY, "adaptive"), (MANUAL_ONLY, "manual"), (NONE, "none")])
def test_an_effort_level_the_model_does_not_advertise_falls_back_to_auto_with_a_note(info, kind):
    plan = thinking_request("max", info, max_tokens=8192)
    assert plan.kind == kind and plan.output_config is None
    assert "'max'" in plan.note and info.id in plan.note


def test_off_uses_the_models_own_way_to_turn_thinking_off():
    assert thinking_request("off", MANUAL_ONLY, max_tokens=10).thinking == {"type": "disabled"}
    assert thinking_request("off", ADAPTIVE_BETWEEN, max_tokens=10).thinking == {"type": "between_tools"}
    cannot = thinking_request("off", ADAPTIVE_ONLY, max_tokens=10)
    assert cannot.thinking is None and "cannot turn thinking off" in cannot.note
    assert thinking_request("off", None, max_tokens=10).note == ""
