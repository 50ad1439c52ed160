"""$/cancelRequest ends a turn with -32800 and a valid history; a second chat meanwhile gets -32002."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from agentls.mock_api import Reply, Text, ToolUse
from .helpers import options_for, wait_until


async def test_cancel_mid_stream_then_the_next_chat_works(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api))
    # The SDK and the endpoint's model list loaded first (slow on a loaded machine): the wait below is the turn's.
    await editor.request("agent/models")
    mock_api.script(Reply([Text("slow " * 300)], chunk_delay=0.02))
    turn = asyncio.ensure_future(editor.request("agent/chat", {"prompt": "talk slowly"}, msg_id="slow-turn"))
    await wait_until(lambda: "textDelta" in editor.kinds())

    with pytest.raises(JsonRpcException) as busy:
        await editor.request("agent/chat", {"prompt": "me too"})
    assert busy.value.code == -32002 and "already running" in busy.value.message
    with pytest.raises(JsonRpcException) as busy:
        await editor.request("agent/compact", {})
    assert busy.value.code == -32002

    editor.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="slow-turn"))
    with pytest.raises(JsonRpcException) as cancelled:
        await turn
    assert cancelled.value.code == -32800

    mock_api.script(Reply([Text("fine again")]))
    result = await editor.request("agent/chat", {"prompt": "and now?"})
    assert result["text"] == "fine again"
    history = mock_api.message_bodies[-1]["messages"]
    assert history[0]["role"] == "user" and history[-1]["role"] == "user"


async def test_cancel_while_waiting_for_approval(start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api))
    answered = asyncio.Event()

    async def later(params):
        await answered.wait()
        return {"approved": True}

    editor.confirm_answer = later
    mock_api.script(Reply([ToolUse("run_shell", {"command": "touch ran.txt"})]))
    turn = asyncio.ensure_future(editor.request("agent/chat", {"prompt": "run"}, msg_id="waiting"))
    await wait_until(lambda: "toolStart" in editor.kinds())
    await asyncio.sleep(0.2)
    editor.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="waiting"))
    with pytest.raises(JsonRpcException) as cancelled:
        await turn
    assert cancelled.value.code == -32800
    answered.set()
    mock_api.script(Reply([Text("next")]))
    assert (await editor.request("agent/chat", {"prompt": "next"}))["text"] == "next"
    assert not (workspace / "ran.txt").exists()
    tool_result = mock_api.message_bodies[-1]["messages"][-1]["content"][0]
    assert tool_result["type"] == "tool_result" and "cancelled" in tool_result["content"]


async def test_progress_cancel_cancels_the_turn(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api))
    editor.client.progress_reports["p1"] = []
    mock_api.script(Reply([Text("slow " * 300)], chunk_delay=0.02))
    turn = asyncio.ensure_future(editor.request("agent/chat", {"prompt": "slow", "workDoneToken": "p1"}))
    await wait_until(lambda: "textDelta" in editor.kinds())
    editor.client.protocol.notify(types.WINDOW_WORK_DONE_PROGRESS_CANCEL,
                                  types.WorkDoneProgressCancelParams(token="p1"))
    with pytest.raises(JsonRpcException) as cancelled:
        await turn
    assert cancelled.value.code == -32800
    assert editor.client.progress_reports["p1"][-1].kind == "end"
