"""Issue 19, finding 7: out-of-range settings are reported and ignored; the server always starts.

A 401-digit contextWindow used to stop the agent ("could not start: OverflowError") and, through
didChangeConfiguration, fail every request; a maxTokens of 10^400 went to the API; a baseUrl with
a CRLF ended in "handle failed: InvalidURL" and a traceback.
"""

from __future__ import annotations

from lsprotocol import types

from agentls.mock_api import Reply, Text
from .helpers import SECRET, server_env, wait_until

HUGE = 10 ** 401


def bad_settings() -> dict:
    return {"contextWindow": HUGE, "maxTokens": 10 ** 400, "outputReserve": -HUGE,
            "baseUrl": "http://127.0.0.1:9/\r\nX-Injected: yes", "model": "claude\x1b[2J",
            "approvals": {"timeoutSeconds": HUGE},
            "mcpServers": {"slow": {"command": "true", "timeout": HUGE, "startupTimeout": HUGE},
                           "web": {"url": "http://127.0.0.1:9/mcp\r\nX-Injected: yes"}}}


async def test_huge_numbers_and_a_crlf_url_are_reported_and_ignored_and_every_request_works(
        start_editor, mock_api, data_dir):
    env = server_env(data_dir, ANTHROPIC_BASE_URL=mock_api.base_url)  # where requests go once baseUrl is ignored
    editor = await start_editor({"apiKey": SECRET, "settings": bad_settings()}, env=env)
    mock_api.script(Reply([Text("fine")]))
    assert (await editor.request("agent/chat", {"prompt": "hello"}))["text"] == "fine"
    body = mock_api.message_bodies[-1]
    assert body["max_tokens"] == 8192 and body["model"] == "claude-sonnet-5-5"  # the defaults, not the bad values
    context = await editor.request("agent/context")
    assert context["window"] < 10_000_000

    warnings = await wait_until(lambda: [m.message for m in editor.client.messages if "contextWindow" in m.message])
    for field in ("contextWindow", "maxTokens", "outputReserve", "baseUrl", "model", "timeoutSeconds",
                  "mcpServers.slow", "mcpServers.web"):
        assert f"{field}" in warnings[0], field
    assert str(HUGE)[:40] not in warnings[0] and "X-Injected" not in warnings[0] and "\x1b" not in warnings[0]

    # The same values through didChangeConfiguration: reported again; the next requests still work.
    editor.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"agentls": bad_settings()}))
    await wait_until(lambda: len([m for m in editor.client.messages if "contextWindow" in m.message]) == 2)
    mock_api.script(Reply([Text("still fine")]))
    assert (await editor.request("agent/chat", {"prompt": "again"}))["text"] == "still fine"
    assert mock_api.message_bodies[-1]["max_tokens"] == 8192
    assert (await editor.request("agent/cost"))["requests"] == 2
    servers = (await editor.request("agent/mcpServers", {"connect": False}))["servers"]
    assert servers == []  # both servers were ignored, not started with absurd timeouts
