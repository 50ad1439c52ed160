"""Issue 32: a client that restarts the agent and loads the session at once succeeds — the lease of a
process that exited (or is exiting after a SIGTERM) never answers "open in another window"."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sqlite3

from acp_client import EditorClient, agent_env, prompt, running_agent
from agentls.agent.store.db import DB_NAME
from agentls.mock_api import Reply

RUNS = 20


async def test_a_load_right_after_the_previous_process_was_stopped_succeeds(tmp_path, mock_api, workspace):
    env = agent_env(tmp_path, mock_api)
    mock_api.script(*[Reply(f"answer {n}") for n in range(RUNS + 1)])
    async with running_agent(EditorClient(), env) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("start")), 60)
    for n in range(RUNS):
        client = EditorClient()
        async with running_agent(client, env) as (conn, process):
            await asyncio.wait_for(conn.load_session(cwd=str(workspace), session_id=sid, mcp_servers=[]), 60)
            await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt(f"run {n}")), 60)
            # what an editor restarting its agent does: stop it, and start the next one once it is gone
            process.send_signal(signal.SIGTERM)
            await asyncio.wait_for(process.wait(), 30)
        assert f"answer {n + 1}" in client.text()
        assert _lease(tmp_path, sid) is None  # the stopped agent closed its session: nothing to take over


def _lease(tmp_path, session_id: str) -> tuple | None:
    with contextlib.closing(sqlite3.connect(tmp_path / "data" / DB_NAME)) as connection:
        return connection.execute("SELECT owner, pid FROM leases WHERE session = ?", (session_id,)).fetchone()


async def test_a_load_while_the_previous_process_is_still_closing_waits_for_it(tmp_path, mock_api, workspace):
    """The editor closed the old agent's stdin and started the next at once: the old one is still
    closing its session (it holds the lease until it has), so the load waits for it, briefly."""
    env = agent_env(tmp_path, mock_api)
    mock_api.script(*[Reply(f"answer {n}") for n in range(RUNS + 1)])
    client = EditorClient()
    old = running_agent(client, env)
    conn, process = await old.__aenter__()
    sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
    await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("start")), 60)
    for n in range(RUNS):
        process.stdin.close()  # the editor let go of the old agent: it closes its session and exits
        new = running_agent(client := EditorClient(), env)
        conn, next_process = await new.__aenter__()
        await asyncio.wait_for(conn.load_session(cwd=str(workspace), session_id=sid, mcp_servers=[]), 60)
        await old.__aexit__(None, None, None)
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt(f"run {n}")), 60)
        assert f"answer {n + 1}" in client.text()
        old, process = new, next_process
    await old.__aexit__(None, None, None)
