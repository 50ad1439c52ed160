"""Issue 32: the offline demo notice opens a conversation once, not every reply of a client that starts
the agent for each prompt (acpx) and loads the conversation every time."""

from __future__ import annotations

import asyncio

from acp_client import EditorClient, agent_env, prompt, running_agent

NOTICE = "no API key was found"


async def test_the_demo_notice_is_told_once_per_conversation_not_per_process(tmp_path, workspace):
    env = agent_env(tmp_path, None)
    first = EditorClient()
    async with running_agent(first, env) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("list the files")), 60)
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("read notes.md")), 60)
    assert first.text().count(NOTICE) == 1 and first.text().startswith(f"[{NOTICE}")
    for text in ("read app.py", "search for answer"):  # a process per prompt, as acpx runs the agent
        later = EditorClient()
        async with running_agent(later, env) as (conn, _):
            await asyncio.wait_for(conn.load_session(cwd=str(workspace), session_id=sid, mcp_servers=[]), 60)
            replayed = len(later.updates)
            await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt(text)), 60)
        answer = "".join(u.content.text for _, u in later.updates[replayed:]
                         if u.session_update == "agent_message_chunk")
        assert "[demo model" in answer and NOTICE not in answer
