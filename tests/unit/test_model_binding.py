"""The documented model lists (binding, mid-conversation system messages, tool changes), recognising the
prefix-mismatch 400, and the drop_block form of a request."""

from __future__ import annotations

import pytest

from agentls.model.binding import accepts_system_messages, accepts_tool_changes, thinking_binds
from agentls.model.catalog import ModelInfo
from agentls.model.errors import is_prefix_mismatch, mismatch_path
from agentls.model.request import rebound_request, with_drop_block

DOCUMENTED_MESSAGE = ("messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a "
                      "different conversation. Remove the block, or set "
                      "`thinking.block_binding.prefix_mismatch_behavior` to \"drop_block\".")
DROP = {"prefix_mismatch_behavior": "drop_block"}


@pytest.mark.parametrize("model", ["claude-fable-5-2", "claude-mythos-5-2", "claude-fable-5-1", "claude-mythos-5-1",
                                   "claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5",
                                   "claude-sonnet-5-5-20260928", "claude-opus-5-5-latest"])
def test_the_prefix_check_models_bind_even_without_thinking_on(model):
    assert thinking_binds(model, thinking_on=False)


@pytest.mark.parametrize("model", ["claude-fable-5", "claude-mythos-5", "claude-opus-5", "claude-sonnet-5",
                                   "claude-opus-4-8", "claude-haiku-4-5"])
def test_models_before_the_check_never_bind(model):
    assert not thinking_binds(model, thinking_on=True)


def test_a_model_the_docs_do_not_name_binds_when_it_thinks():
    assert thinking_binds("acme-reasoner", thinking_on=True) and not thinking_binds("acme-reasoner", False)


@pytest.mark.parametrize("model", ["claude-fable-5-1", "claude-mythos-5-1", "claude-fable-5", "claude-mythos-5",
                                   "claude-opus-5-5", "claude-opus-4-8", "claude-opus-5", "claude-sonnet-5-5"])
def test_the_documented_models_take_system_messages_and_tool_changes(model):
    assert accepts_system_messages(model) and accepts_tool_changes(model)


@pytest.mark.parametrize("model", ["claude-sonnet-5", "claude-haiku-4-5", "claude-opus-4-7", "acme-large",
                                   "claude-haiku-5-5"])
def test_other_models_take_neither(model):
    # Sonnet 5 is named as not taking them; Haiku 5.5 and unknown models are not named at all.
    assert not accepts_system_messages(model) and not accepts_tool_changes(model)


def test_the_documented_400_is_recognised_with_the_block_it_names():
    assert is_prefix_mismatch(400, DOCUMENTED_MESSAGE)
    assert is_prefix_mismatch(400, DOCUMENTED_MESSAGE + " The top-level `tools` changed.")
    assert mismatch_path(DOCUMENTED_MESSAGE) == "messages.1.content.0"
    assert not is_prefix_mismatch(500, DOCUMENTED_MESSAGE)
    assert not is_prefix_mismatch(400, "prompt is too long: 210000 tokens > 200000 maximum")
    assert mismatch_path("no path here") == ""


ADAPTIVE = ModelInfo("m", thinking_types=frozenset({"adaptive"}))
MANUAL = ModelInfo("m", thinking_types=frozenset({"enabled", "disabled"}))


def test_drop_block_joins_the_thinking_the_request_has():
    adaptive = {"model": "m", "thinking": {"type": "adaptive", "display": "summarized"}}
    assert with_drop_block(adaptive, ADAPTIVE)["thinking"] == {"type": "adaptive", "display": "summarized",
                                                               "block_binding": DROP}
    manual = {"model": "m", "thinking": {"type": "enabled", "budget_tokens": 2048}}
    assert with_drop_block(manual, MANUAL)["thinking"]["block_binding"] == DROP
    assert "block_binding" not in adaptive["thinking"]  # the original is left alone


def test_drop_block_adds_adaptive_thinking_only_where_the_model_takes_it():
    bare = {"model": "claude-sonnet-5-5", "messages": []}
    assert with_drop_block(bare, ADAPTIVE)["thinking"] == {"type": "adaptive", "block_binding": DROP}
    assert with_drop_block(bare, MANUAL) is None
    assert with_drop_block(bare, None)["thinking"]["type"] == "adaptive"  # documented binding model, no catalog
    assert with_drop_block({"model": "acme"}, None) is None
    for off in ("disabled", "between_tools"):
        assert with_drop_block({"model": "m", "thinking": {"type": off}}, ADAPTIVE) is None


def test_a_rebound_request_is_made_once_and_only_for_the_prefix_mismatch():
    request = {"model": "m", "thinking": {"type": "adaptive"}}
    rebound = rebound_request(request, ADAPTIVE, 400, DOCUMENTED_MESSAGE)
    assert rebound is not None and rebound["thinking"]["block_binding"] == DROP
    assert rebound_request(rebound, ADAPTIVE, 400, DOCUMENTED_MESSAGE) is None  # never a loop
    assert rebound_request(request, ADAPTIVE, 400, "max_tokens: too large") is None
    assert rebound_request(request, ADAPTIVE, 529, DOCUMENTED_MESSAGE) is None
