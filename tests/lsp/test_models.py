"""agent/models and the model that answers, against a mock endpoint that lists models no table contains.

The mock's Models API (mock_api/models.py) serves ids the offline table does not know (one
with a 750K window, one adaptive-only) and refuses what the real API refuses: unlisted
ids with 404, `budget_tokens` to an adaptive-only model with 400. What the server sent is
read back from the mock.
"""

from __future__ import annotations

import pytest
from lsprotocol import types

from agentls.demo.brain import demo_reply
from agentls.mock_api import MockAnthropicServer, Reply, Text, Thinking, mock_model
from agentls.model.catalog import FALLBACK_MODELS, OFFLINE_DEFAULT_MODEL
from .helpers import options_for, wait_until

INFO_FIELDS = {"id", "label", "contextWindow", "maxOutput", "createdAt", "thinking", "efforts", "lifecycle",
               "inputPerMTok", "outputPerMTok", "cacheReadPerMTok", "cacheWritePerMTok"}
# newest first, as the Models API lists them
ENDPOINT_MODELS = [
    mock_model("acme-swift-9", display_name="Acme Swift 9", window=128_000, max_tokens=16_000,
               thinking=("enabled", "disabled"), created_at="2027-03-01T00:00:00Z", line="haiku"),
    mock_model("acme-sonnet-9", display_name="Acme Sonnet 9", window=750_000, max_tokens=64_000,
               thinking=("enabled", "disabled"), created_at="2027-02-01T00:00:00Z"),
    mock_model("acme-deep-9", display_name="Acme Deep 9", window=1_000_000, max_tokens=128_000,
               thinking=("adaptive",), efforts=("low", "high"), created_at="2027-01-01T00:00:00Z"),
]
TABLE_IDS = {m.id for m in FALLBACK_MODELS}


@pytest.fixture
def listing_api():
    with MockAnthropicServer(models=ENDPOINT_MODELS, responder=demo_reply) as server:
        yield server


def _configure(editor, **settings) -> None:
    editor.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"agentls": settings}))


def _warnings(editor) -> list[str]:
    return [m.message for m in editor.client.messages if m.type == types.MessageType.Warning]


async def test_agent_models_is_exactly_the_endpoints_list(start_editor, listing_api):
    assert not TABLE_IDS & {m["id"] for m in ENDPOINT_MODELS}  # no table knows these ids
    editor = await start_editor(options_for(listing_api))
    result = await editor.request("agent/models")
    assert set(result) == {"models", "source", "note", "current", "configured", "demo"}
    assert result["source"] == "endpoint" and result["note"] == "" and result["demo"] is False
    assert all(set(m) == INFO_FIELDS for m in result["models"])
    listed = [(m["id"], m["label"], m["contextWindow"], m["maxOutput"], m["thinking"]) for m in result["models"]]
    assert listed == [("acme-swift-9", "Acme Swift 9", 128_000, 16_000, "manual"),
                      ("acme-sonnet-9", "Acme Sonnet 9", 750_000, 64_000, "manual"),
                      ("acme-deep-9", "Acme Deep 9", 1_000_000, 128_000, "adaptive")]
    deep = result["models"][2]
    assert deep["efforts"] == ["low", "high"] and deep["inputPerMTok"] is None  # price unknown, not borrowed
    # no model configured: the default rule picks the newest balanced-tier model
    assert result["configured"] == "" and result["current"] == "acme-sonnet-9"


async def test_the_first_chat_with_no_model_configured_succeeds_and_the_window_follows(start_editor, listing_api):
    editor = await start_editor(options_for(listing_api))
    listing_api.script(Reply([Thinking("let me think"), Text("hello from acme")]))
    result = await editor.request("agent/chat", {"prompt": "hi"})
    assert result["text"] == "hello from acme" and result["stopReason"] == "end_turn"
    body = listing_api.message_bodies[-1]
    assert body["model"] == "acme-sonnet-9"
    assert body["thinking"]["type"] == "enabled" and body["max_tokens"] > body["thinking"]["budget_tokens"]
    assert any(e["kind"] == "thinkingDelta" for e in editor.events)  # thinking still streams to the client
    usage = editor.usages[-1]
    assert usage["model"] == "acme-sonnet-9" and usage["modelWindow"] == 750_000
    assert usage["window"] == 200_000  # the working window: min(750K, 200K) without contextWindow
    cost = await editor.request("agent/cost")
    assert cost["unpricedModels"] == ["acme-sonnet-9"] and cost["usd"] == 0 and cost["inputTokens"] > 0
    assert not _warnings(editor)


async def test_choosing_the_adaptive_only_model_sends_adaptive_and_never_budget_tokens(start_editor, listing_api):
    editor = await start_editor(options_for(listing_api, model="acme-deep-9"))
    listing_api.script(Reply([Thinking("deep thought"), Text("one")]), Reply([Text("two")]))
    await editor.request("agent/chat", {"prompt": "first"})
    _configure(editor, baseUrl=listing_api.base_url, model="acme-deep-9", thinking="high", contextWindow=600_000)
    await wait_until(lambda: editor.usages[-1]["window"] == 600_000)
    await editor.request("agent/chat", {"prompt": "second"})
    bodies = listing_api.message_bodies
    assert [b["model"] for b in bodies] == ["acme-deep-9", "acme-deep-9"]
    assert [b["thinking"] for b in bodies] == [{"type": "adaptive", "display": "summarized"}] * 2
    assert "output_config" not in bodies[0] and bodies[1]["output_config"] == {"effort": "high"}
    assert not any("budget_tokens" in str(b) for b in bodies)
    assert editor.usages[-1]["modelWindow"] == 1_000_000
    # an effort level the model does not advertise: said once, and adaptive thinking without it
    _configure(editor, baseUrl=listing_api.base_url, model="acme-deep-9", thinking="max")
    await wait_until(lambda: _warnings(editor))
    assert "agentls.thinking" in _warnings(editor)[0] and "'max'" in _warnings(editor)[0]


async def test_a_configured_model_the_endpoint_lacks_warns_at_start_and_the_first_chat_works(
        start_editor, listing_api):
    editor = await start_editor(options_for(listing_api, model="claude-opus-4-1"))
    await wait_until(lambda: _warnings(editor))
    warning = _warnings(editor)[0]
    assert "claude-opus-4-1" in warning and "agentls.model" in warning and "acme-sonnet-9" in warning
    assert "model picker" in warning
    listing_api.script(Reply([Text("fine")]))
    result = await editor.request("agent/chat", {"prompt": "hi"})
    assert result["text"] == "fine"
    assert [b["model"] for b in listing_api.message_bodies] == ["acme-sonnet-9"]  # never the unlisted id: no 404
    models = await editor.request("agent/models")
    assert models["configured"] == "claude-opus-4-1" and models["current"] == "acme-sonnet-9"
    assert len(_warnings(editor)) == 1  # told once


async def test_a_404_from_the_api_names_the_model_and_the_setting(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api, model="claude-gone-1"))
    from agentls.mock_api import Fault

    mock_api.inject(Fault.http_status(404, message="model: claude-gone-1"))
    with pytest.raises(Exception) as failed:
        await editor.request("agent/chat", {"prompt": "hi"})
    assert "claude-gone-1" in str(failed.value) and "agentls.model" in str(failed.value)


async def test_an_endpoint_without_a_models_api_offers_the_fallback_labelled(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api))
    result = await editor.request("agent/models")
    assert result["source"] == "fallback" and "no Models API" in result["note"]
    assert [m["id"] for m in result["models"]] == [m.id for m in FALLBACK_MODELS]
    assert result["current"] == OFFLINE_DEFAULT_MODEL and result["configured"] == ""
    mock_api.script(Reply([Text("one")]))
    await editor.request("agent/chat", {"prompt": "first"})
    assert mock_api.message_bodies[-1]["model"] == OFFLINE_DEFAULT_MODEL


async def test_a_model_change_reaches_the_next_request_and_every_view(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api))
    mock_api.script(Reply([Text("one")]))
    await editor.request("agent/chat", {"prompt": "first"})
    assert mock_api.message_bodies[-1]["model"] == OFFLINE_DEFAULT_MODEL

    _configure(editor, baseUrl=mock_api.base_url, model="claude-haiku-4-5")
    await wait_until(lambda: editor.usages[-1]["model"] == "claude-haiku-4-5")
    mock_api.script(Reply([Text("two")]))
    await editor.request("agent/chat", {"prompt": "second"})
    assert mock_api.message_bodies[-1]["model"] == "claude-haiku-4-5"
    assert (await editor.request("agent/cost"))["model"] == "claude-haiku-4-5"
    assert (await editor.request("agent/context"))["model"] == "claude-haiku-4-5"
    models = await editor.request("agent/models")
    assert models["current"] == models["configured"] == "claude-haiku-4-5"


async def test_the_window_follows_the_endpoints_model_unless_set(start_editor, listing_api, mock_api):
    editor = await start_editor(options_for(listing_api, model="acme-swift-9"))
    # The agent is ready before the list arrives (issue 22: a start waits for neither the SDK nor the
    # endpoint); the list then decides the window, and the meter is told.
    await wait_until(lambda: editor.usages and editor.usages[-1]["modelWindow"] == 128_000)
    context = await editor.request("agent/context")
    assert (context["window"], context["modelWindow"]) == (128_000, 128_000)
    _configure(editor, baseUrl=mock_api.base_url, model="my-proxy/any-id")  # another endpoint, no list
    await wait_until(lambda: editor.usages[-1]["model"] == "my-proxy/any-id")
    context = await editor.request("agent/context")
    assert (context["window"], context["modelWindow"]) == (200_000, None)
    _configure(editor, baseUrl=listing_api.base_url, model="acme-swift-9", contextWindow=500_000)
    await wait_until(lambda: editor.usages[-1]["model"] == "acme-swift-9")
    assert (await editor.request("agent/context"))["window"] == 128_000  # never beyond the model's own


async def test_demo_mode_names_the_demo_model_and_its_offline_list(start_editor):
    editor = await start_editor({"supportsConfirm": True})
    result = await editor.request("agent/models")
    assert result["current"] == "demo model (offline)" and result["demo"] is True
    assert result["configured"] == "" and result["source"] == "fallback" and "demo" in result["note"]
