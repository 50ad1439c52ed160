"""Plan mode over ACP (issue 34), through the SDK's own client side and the real `agentls acp` process.

session/new and session/load offer the modes (SessionModeState: act, plan) and the current one; session/set_mode
switches (a write is then refused without a permission request), `/plan` switches too and is announced with a
current_mode_update; the mode is saved with the session, so session/load after a restart offers it as current.
"""

from __future__ import annotations

import asyncio

import pytest
from acp import RequestError

from acp_client import EditorClient, agent_env, prompt, running_agent
from agentls.mock_api import Reply, Text, ToolUse


async def test_set_mode_plan_refuses_writes_unasked_and_load_after_restart_offers_it(tmp_path, mock_api,
                                                                                       workspace):
    plan = [{"content": "Write hello.txt", "status": "pending"}]
    mock_api.script(Reply([ToolUse("write_file", {"path": "hello.txt", "content": "hi"})]),
                    Reply([ToolUse("todo_write", {"todos": plan})]), Reply([Text("Plan written.")]))
    client = EditorClient()
    env = agent_env(tmp_path, mock_api)
    async with running_agent(client, env) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        assert session.modes is not None and session.modes.current_mode_id == "act"
        assert [m.id for m in session.modes.available_modes] == ["act", "plan"]
        await conn.set_session_mode(session_id=session.session_id, mode_id="plan")
        with pytest.raises(RequestError):
            await conn.set_session_mode(session_id=session.session_id, mode_id="yolo")
        answer = await asyncio.wait_for(conn.prompt(session_id=session.session_id, prompt=prompt("write hello")), 60)
        assert answer.stop_reason == "end_turn"
    assert client.permissions == []  # refused, nobody asked
    assert not (workspace / "hello.txt").exists()
    refused = mock_api.message_bodies[1]["messages"][-1]["content"][0]
    assert refused["is_error"] and "plan mode is on" in refused["content"]
    [update] = client.of("plan")
    assert [e.content for e in update.entries] == ["Write hello.txt"]
    assert "# Agent mode: plan" in str(mock_api.message_bodies[0]["messages"])
    # a restart: the saved session is loaded in plan mode
    again = EditorClient()
    async with running_agent(again, env) as (conn, _):
        loaded = await conn.load_session(cwd=str(workspace), session_id=session.session_id, mcp_servers=[])
        assert loaded.modes is not None and loaded.modes.current_mode_id == "plan"


async def test_plan_command_is_offered_and_announced_as_a_mode_update(tmp_path, mock_api, workspace):
    client = EditorClient()
    async with running_agent(client, agent_env(tmp_path, mock_api)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        sid = session.session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("/plan")), 60)
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("/plan off")), 60)
    offered = [c.name for update in client.of("available_commands_update") for c in update.available_commands]
    assert "plan" in offered
    assert [u.current_mode_id for u in client.of("current_mode_update")] == ["plan", "act"]
    assert "Plan mode is on" in client.text() and "Plan mode is off" in client.text()
    assert mock_api.message_bodies == []  # commands, not turns
