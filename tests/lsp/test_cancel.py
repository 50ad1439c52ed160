"""$/cancelRequest ends a turn with -32800 and a valid history; a second chat meanwhile gets -32002."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from agentls.mock_api import Fault, Reply, Text, ToolUse
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


async def test_a_stopped_turn_is_marked_and_the_next_prompt_is_its_own_message(start_editor, mock_api):
    """Issue 33.2: the stopped prompt is not joined to the next one; its partial reply is kept, marked."""
    editor = await start_editor(options_for(mock_api))
    await editor.request("agent/models")
    mock_api.script(Reply([Text("partial " * 300)], chunk_delay=0.02))
    turn = asyncio.ensure_future(editor.request("agent/chat", {"prompt": "write a long essay"}, msg_id="long"))
    await wait_until(lambda: "textDelta" in editor.kinds())
    editor.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="long"))
    with pytest.raises(JsonRpcException):
        await turn

    mock_api.script(Reply([Text("yes, back")]))
    await editor.request("agent/chat", {"prompt": "are you back?"})
    sent = mock_api.message_bodies[-1]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert "write a long essay" in str(sent[0]) and "are you back?" not in str(sent[0])
    stopped = str(sent[1]["content"])
    assert stopped.startswith("[{'type': 'text', 'text': 'partial partial") and \
        "[interrupted: the user stopped this turn; this reply is incomplete]" in stopped
    assert "are you back?" in str(sent[2]) and "write a long essay" not in str(sent[2])


async def test_a_failed_turn_is_marked_and_the_next_prompt_is_answered_as_itself(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api))
    mock_api.inject(Fault.http_status(400, message="the endpoint refused it"))
    with pytest.raises(JsonRpcException):
        await editor.request("agent/chat", {"prompt": "the failed prompt"})
    mock_api.script(Reply([Text("yes")]))
    await editor.request("agent/chat", {"prompt": "are you back?"})
    sent = mock_api.message_bodies[-1]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert "[interrupted: the request to the model failed before any reply]" in str(sent[1])
    assert "are you back?" in str(sent[2]) and "the failed prompt" not in str(sent[2])
