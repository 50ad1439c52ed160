"""Issue 19, finding 1: a session belongs to the workspace it was created for.

Two real servers on two workspaces share one data folder (as two editor
windows of one user do): the window on workspace B can neither resume,
read, rename nor delete a session of workspace A by its id, and nobody
renames a session another live window holds.
"""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcException

from agentls.mock_api import Reply, Text, ToolUse
from .helpers import options_for, wait_until


async def test_another_workspaces_session_is_refused_and_a_held_one_is_not_renamed(
        start_editor, mock_api, workspace, tmp_path):
    other = tmp_path / "other-ws"
    other.mkdir()
    mine = await start_editor(options_for(mock_api))
    await wait_until(lambda: mine.usages)
    mock_api.script(Reply([ToolUse("read_file", {"path": "notes.md"}, id="toolu_ws_a")]), Reply([Text("read")]))
    await mine.request("agent/chat", {"prompt": "workspace A's conversation"})
    first = (await mine.request("agent/sessions"))["current"]
    await mine.request("agent/newSession")  # the first session is free now: no window holds it

    stranger = await start_editor(options_for(mock_api), folders=[other])
    await wait_until(lambda: stranger.usages)
    for method, params in (("agent/resume", {"sessionId": first}),
                           ("agent/renameSession", {"sessionId": first, "title": "taken"}),
                           ("agent/deleteSession", {"sessionId": first})):
        with pytest.raises(JsonRpcException) as refused:
            await stranger.request(method, params)
        assert refused.value.code == -32602 and "no session" in refused.value.message, method
    with pytest.raises(JsonRpcException) as unread:
        await stranger.request("agent/toolResult", {"toolUseId": "toolu_ws_a", "original": True})
    assert unread.value.code == -32602
    mock_api.script(Reply([Text("B's answer")]))
    await stranger.request("agent/chat", {"prompt": "workspace B speaks"})

    listed = {s["id"]: s for s in (await mine.request("agent/sessions"))["sessions"]}
    assert listed[first]["title"] == "workspace A's conversation" and listed[first]["turns"] == 1
    resumed = await mine.request("agent/resume", {"sessionId": first})
    assert "workspace B speaks" not in str(resumed["transcript"])

    # A second window on workspace A may not rename the session the first window holds.
    twin = await start_editor(options_for(mock_api))
    await wait_until(lambda: twin.usages)
    with pytest.raises(JsonRpcException) as held:
        await twin.request("agent/renameSession", {"sessionId": first, "title": "renamed behind its back"})
    assert held.value.code == -32602 and "open in another window" in held.value.message
    await mine.request("agent/renameSession", {"sessionId": first, "title": "renamed by its own window"})
    titles = {s["id"]: s["title"] for s in (await twin.request("agent/sessions"))["sessions"]}
    assert titles[first] == "renamed by its own window"
