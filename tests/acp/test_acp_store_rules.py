"""Issue 19 in the ACP front end: a stored session belongs to its folder, and a busy store is said, not hidden.

The same rules as the language server's (tests/lsp/test_session_workspaces.py, test_store_busy.py):
session/load and session/resume of another folder's session are refused as not found, whatever its id,
and it is not written to; session/list of a folder lists that folder's sessions only. When another
process keeps the session database locked, session/new and session/load answer "busy" after a bounded
wait (ACP has no busy code: -32600, as for a second prompt), and `/new` in an open session says so and
keeps the conversation, which is still saved once the lock is gone.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys

import pytest
from acp import RequestError
from acp_client import EditorClient, agent_env, prompt, running_agent
from agentls.mock_api import Reply

HOLD = """
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()
connection.execute("COMMIT")
"""
BUSY = -32600  # acp/session.py: ACP defines no busy code (its -32002 means "not found")


async def hold_write_lock(data_dir) -> asyncio.subprocess.Process:
    """Another process takes the database's write lock until its stdin closes."""
    process = await asyncio.create_subprocess_exec(sys.executable, "-c", HOLD, str(data_dir / "sessions.db"),
                                                   stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    assert await asyncio.wait_for(process.stdout.readline(), 30) == b"locked\n"
    return process


def stored_prompts(data_dir, session_id: str) -> list[str]:
    with sqlite3.connect(data_dir / "sessions.db") as db:
        rows = db.execute("SELECT body FROM records WHERE session = ? AND kind = 'message'", (session_id,)).fetchall()
    return [body for (body,) in rows]


async def test_another_folders_session_is_not_found_nor_written_to(tmp_path, mock_api, workspace):
    other = tmp_path / "other-ws"
    other.mkdir()
    mock_api.script(Reply("first answer"))
    client = EditorClient()
    async with running_agent(client, agent_env(tmp_path, mock_api)) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("workspace A's conversation")), 60)
        await conn.close_session(session_id=sid)  # stored, held by nobody

        for open_it in (conn.load_session, conn.resume_session):
            with pytest.raises(RequestError) as refused:
                await asyncio.wait_for(open_it(cwd=str(other), session_id=sid, mcp_servers=[]), 60)
            assert refused.value.code == -32002 and "in this workspace" in str(refused.value), open_it.__name__
        assert (await conn.list_sessions(cwd=str(other))).sessions == []
        assert [s.session_id for s in (await conn.list_sessions(cwd=str(workspace))).sessions] == [sid]

        mock_api.script(Reply("still A"))
        await asyncio.wait_for(conn.load_session(cwd=str(workspace), session_id=sid, mcp_servers=[]), 60)
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("back in A")), 60)
    prompts = stored_prompts(tmp_path / "data", sid)
    assert len(prompts) == 4 and "back in A" in prompts[2]  # two turns, both A's: nothing of the refused opens
    assert [m["role"] for m in mock_api.message_bodies[-1]["messages"]] == ["user", "assistant", "user"]


async def test_a_locked_store_answers_busy_and_the_open_conversation_goes_on_saved(tmp_path, mock_api, workspace):
    data_dir = tmp_path / "data"
    mock_api.script(Reply("first"), Reply("second"))
    client = EditorClient()
    env = agent_env(tmp_path, mock_api, AGENTLS_STORE_BUSY_SECONDS="1")
    async with running_agent(client, env) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("kept conversation")), 60)
        closed = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.close_session(session_id=closed)

        holder = await hold_write_lock(data_dir)
        try:
            await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("/new")), 60)
            with pytest.raises(RequestError) as busy_new:
                await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), 60)
            with pytest.raises(RequestError) as busy_load:
                await asyncio.wait_for(conn.load_session(cwd=str(workspace), session_id=closed, mcp_servers=[]), 60)
        finally:
            holder.stdin.close()
            await holder.wait()
        for refused in (busy_new, busy_load):
            assert refused.value.code == BUSY and "the session store is busy" in str(refused.value)
        assert "No new conversation: the session store is busy" in client.text()

        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("still the same chat")), 60)
    assert [m["role"] for m in mock_api.message_bodies[-1]["messages"]] == ["user", "assistant", "user"]
    assert any("still the same chat" in body for body in stored_prompts(data_dir, sid))
