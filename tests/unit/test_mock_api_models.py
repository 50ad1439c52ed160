"""The mock's Models API through the real anthropic SDK: pages, one model, and what it refuses."""

from __future__ import annotations

import json
import subprocess
import sys

import anthropic
import pytest

from agentls.demo.brain import demo_reply
from agentls.mock_api import MockAnthropicServer, mock_model

USER_HI = [{"role": "user", "content": "hi"}]
MODELS = [mock_model(f"acme-{i:02d}", window=10_000 * (i + 1), max_tokens=1_000 + i) for i in range(5)] + [
    mock_model("acme-adaptive", window=750_000, max_tokens=64_000, thinking=("adaptive",), efforts=("low",)),
    mock_model("acme-manual", window=200_000, max_tokens=8_000, thinking=("enabled", "disabled")),
    mock_model("acme-small", window=50, max_tokens=100, thinking=()),
]


@pytest.fixture(scope="module")
def api():
    with MockAnthropicServer(models=MODELS, responder=demo_reply) as server:
        yield server


@pytest.fixture(scope="module")
def sdk(api):
    with anthropic.Anthropic(base_url=api.base_url, api_key="test-key", max_retries=0) as client:
        yield client


def test_the_list_pages_like_the_real_api(sdk):
    page = sdk.models.list(limit=3)
    assert [m.id for m in page.data] == ["acme-00", "acme-01", "acme-02"] and page.has_more
    assert (page.first_id, page.last_id) == ("acme-00", "acme-02")
    assert [m.id for m in sdk.models.list(limit=3)] == [m["id"] for m in MODELS]  # the SDK follows every page
    back = sdk.models.list(limit=2, before_id="acme-03")
    assert [m.id for m in back.data] == ["acme-01", "acme-02"] and back.has_more
    with pytest.raises(anthropic.BadRequestError):
        sdk.models.list(limit=0)


def test_entries_carry_the_fields_and_capabilities_the_sdk_knows(sdk):
    info = sdk.models.retrieve("acme-adaptive")
    assert (info.id, info.max_input_tokens, info.max_tokens, info.lifecycle) == ("acme-adaptive", 750_000, 64_000,
                                                                                  "active")
    assert info.capabilities.thinking.types.adaptive.supported
    assert not info.capabilities.thinking.types.enabled.supported
    assert info.capabilities.effort.low.supported and not info.capabilities.effort.high.supported
    with pytest.raises(anthropic.NotFoundError):
        sdk.models.retrieve("claude-opus-4-1")


def test_an_unlisted_model_is_404_not_found(sdk):
    with pytest.raises(anthropic.NotFoundError) as missing:
        sdk.messages.create(model="claude-opus-4-1", max_tokens=10, messages=USER_HI)
    assert missing.value.body["error"] == {"type": "not_found_error", "message": "model: claude-opus-4-1"}
    with pytest.raises(anthropic.NotFoundError):
        sdk.messages.count_tokens(model="claude-opus-4-1", messages=USER_HI)
    assert sdk.messages.count_tokens(model="acme-00", messages=USER_HI).input_tokens > 0


def test_a_thinking_type_the_model_does_not_advertise_is_400(sdk):
    with pytest.raises(anthropic.BadRequestError) as manual:
        sdk.messages.create(model="acme-adaptive", max_tokens=4000, messages=USER_HI,
                            thinking={"type": "enabled", "budget_tokens": 2000})
    assert "thinking.type: 'enabled' is not supported for acme-adaptive" in manual.value.message
    with pytest.raises(anthropic.BadRequestError) as adaptive:
        sdk.messages.create(model="acme-manual", max_tokens=4000, messages=USER_HI, thinking={"type": "adaptive"})
    assert "'adaptive' is not supported" in adaptive.value.message
    ok = sdk.messages.create(model="acme-adaptive", max_tokens=100, messages=USER_HI,
                             thinking={"type": "adaptive", "display": "summarized"}, output_config={"effort": "low"})
    assert ok.stop_reason == "end_turn"
    with pytest.raises(anthropic.BadRequestError) as effort:
        sdk.messages.create(model="acme-adaptive", max_tokens=100, messages=USER_HI, thinking={"type": "adaptive"},
                            output_config={"effort": "max"})
    assert "output_config.effort: 'max'" in effort.value.message
    budget = sdk.messages.create(model="acme-manual", max_tokens=4000, messages=USER_HI,
                                 thinking={"type": "enabled", "budget_tokens": 2000})
    assert budget.stop_reason == "end_turn"


def test_the_models_limits_are_enforced(sdk):
    with pytest.raises(anthropic.BadRequestError) as output:
        sdk.messages.create(model="acme-manual", max_tokens=9_000, messages=USER_HI)
    assert "9000 > 8000" in output.value.message
    with pytest.raises(anthropic.BadRequestError) as prompt:
        sdk.messages.create(model="acme-small", max_tokens=10, messages=[{"role": "user", "content": "word " * 400}])
    assert "prompt is too long" in prompt.value.message


def test_on_a_thinking_model_the_prompt_must_leave_room_for_max_tokens(sdk):
    """Extended-thinking models hold max_tokens as a strict limit: prompt + max_tokens over the window is a
    400 in the API's words (docs: about-claude/models/extended-thinking-models); a model without thinking
    only refuses a prompt over the window."""
    prompt = [{"role": "user", "content": "word " * 7_400}]
    counted = sdk.messages.count_tokens(model="acme-00", messages=prompt).input_tokens
    assert 9_000 < counted < 10_000  # acme-00: a 10K window, replies of at most 1,000 tokens
    with pytest.raises(anthropic.BadRequestError) as both:
        sdk.messages.create(model="acme-00", max_tokens=10_000 - counted + 1, messages=prompt)
    assert both.value.body["error"]["message"] == (
        f"input length and `max_tokens` exceed context limit: {counted} + {10_001 - counted} > 10000, "
        "decrease input length or `max_tokens` and try again")
    assert sdk.messages.create(model="acme-00", max_tokens=10_000 - counted, messages=prompt)
    small = [{"role": "user", "content": "word " * 30}]  # acme-small does not think: only its window counts
    assert sdk.messages.create(model="acme-small", max_tokens=100, messages=small)


def test_without_a_list_there_is_no_models_api_and_any_model_is_accepted():
    with (MockAnthropicServer(responder=demo_reply) as api,
          anthropic.Anthropic(base_url=api.base_url, api_key="k", max_retries=0) as sdk):
        with pytest.raises(anthropic.NotFoundError):
            sdk.models.list()
        assert sdk.messages.create(model="any/model-id", max_tokens=10, messages=USER_HI).stop_reason == "end_turn"


def test_the_cli_serves_a_models_file(tmp_path):
    models = tmp_path / "models.json"
    models.write_text(json.dumps([mock_model("acme-cli", window=123_000)]))
    process = subprocess.Popen([sys.executable, "-m", "agentls.demo", "--models", str(models)],
                               stdout=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()  # printed once it listens
        base_url = line.rsplit(" ", 1)[-1].strip()
        with anthropic.Anthropic(base_url=base_url, api_key="k", max_retries=0) as sdk:
            assert [(m.id, m.max_input_tokens) for m in sdk.models.list()] == [("acme-cli", 123_000)]
    finally:
        process.terminate()
        process.wait(10)
