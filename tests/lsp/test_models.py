"""agent/models and a model change: the picker's list, the next request's model, the window that follows it."""

from __future__ import annotations

from lsprotocol import types

from agentls.mock_api import Reply, Text
from .helpers import options_for, wait_until

INFO_FIELDS = {"id", "label", "contextWindow", "inputPerMTok", "outputPerMTok", "cacheReadPerMTok", "cacheWritePerMTok"}


def _configure(editor, **settings) -> None:
    editor.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"agentls": settings}))


async def test_models_lists_known_models_with_windows_and_prices(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api))
    result = await editor.request("agent/models")
    assert set(result) == {"models", "current", "configured", "demo"}
    by_id = {m["id"]: m for m in result["models"]}
    assert all(set(m) == INFO_FIELDS for m in result["models"])
    assert {"claude-sonnet-5-5", "claude-opus-4-5", "claude-haiku-4-5"} <= set(by_id)
    assert by_id["claude-haiku-4-5"]["inputPerMTok"] == 1.0 and by_id["claude-haiku-4-5"]["outputPerMTok"] == 5.0
    assert by_id["claude-opus-4-1"]["outputPerMTok"] == 75.0
    assert all(m["contextWindow"] == 200_000 for m in result["models"])
    assert result["current"] == result["configured"] == "claude-sonnet-5-5" and result["demo"] is False


async def test_a_model_change_reaches_the_next_request_and_every_view(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api))
    mock_api.script(Reply([Text("one")]))
    await editor.request("agent/chat", {"prompt": "first"})
    assert mock_api.message_bodies[-1]["model"] == "claude-sonnet-5-5"

    _configure(editor, baseUrl=mock_api.base_url, model="claude-haiku-4-5")
    await wait_until(lambda: editor.usages[-1]["model"] == "claude-haiku-4-5")
    mock_api.script(Reply([Text("two")]))
    await editor.request("agent/chat", {"prompt": "second"})
    assert mock_api.message_bodies[-1]["model"] == "claude-haiku-4-5"
    assert (await editor.request("agent/cost"))["model"] == "claude-haiku-4-5"
    assert (await editor.request("agent/context"))["model"] == "claude-haiku-4-5"
    models = await editor.request("agent/models")
    assert models["current"] == models["configured"] == "claude-haiku-4-5"


async def test_the_window_follows_the_model_unless_set(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api, model="deepseek-chat"))
    assert (await editor.request("agent/context"))["window"] == 128_000
    _configure(editor, baseUrl=mock_api.base_url, model="my-proxy/any-id")
    await wait_until(lambda: editor.usages[-1]["model"] == "my-proxy/any-id")
    assert (await editor.request("agent/context"))["window"] == 200_000
    _configure(editor, baseUrl=mock_api.base_url, model="deepseek-chat", contextWindow=64_000)
    await wait_until(lambda: editor.usages[-1]["window"] == 64_000)
    mock_api.script(Reply([Text("custom")]))
    await editor.request("agent/chat", {"prompt": "hi"})
    assert mock_api.message_bodies[-1]["model"] == "deepseek-chat"


async def test_demo_mode_names_the_demo_model(start_editor):
    editor = await start_editor({"supportsConfirm": True})
    result = await editor.request("agent/models")
    assert result["current"] == "demo model (offline)" and result["demo"] is True
    assert result["configured"] == "claude-sonnet-5-5"
