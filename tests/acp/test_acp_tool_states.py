"""Issue 32: what ACP clients build their views from — the diff in a permission request, a tool call's
status from `pending` to its end, and a cancel that leaves no call without an end (official SDK client).

CodeCompanion builds its diff review from the request's `diff` content alone; every client shows a
call as running or waiting from its status (ACP tool-calls: pending while awaiting approval).
"""

from __future__ import annotations

import asyncio

from acp import schema
from acp_client import EditorClient, agent_env, prompt, running_agent, wait_until
from agentls.mock_api import Reply, ToolUse


def _statuses(client: EditorClient, tool_call_id: str) -> list[str]:
    """The call's status as the client saw it change, from its start to its last update."""
    return [u.status for _, u in client.updates
            if u.session_update in ("tool_call", "tool_call_update") and u.tool_call_id == tool_call_id and u.status]


def _said_since(client: EditorClient, start: int) -> str:
    return "".join(u.content.text for _, u in client.updates[start:]
                   if u.session_update == "agent_message_chunk" and isinstance(u.content, schema.TextContentBlock))


async def test_an_edit_asks_with_its_diff_and_waits_pending_until_approved(tmp_path, mock_api, workspace):
    mock_api.script(Reply([ToolUse("edit_file", {"path": "notes.md", "old_text": "The answer is 42.",
                                                 "new_text": "The answer is 43."})]), Reply("Edited."))
    client = EditorClient()
    client.permission_gate = asyncio.Event()  # the user reads the request before answering
    async with running_agent(client, agent_env(tmp_path, mock_api)) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=prompt("fix the answer")))
        await wait_until(lambda: client.permissions)
        [start] = client.of("tool_call")
        assert _statuses(client, start.tool_call_id) == ["pending"]  # waiting for the answer is not running
        client.permission_gate.set()
        assert (await asyncio.wait_for(turn, 60)).stop_reason == "end_turn"

    [asked] = client.permissions
    path = str((workspace / "notes.md").resolve())
    assert asked.tool_call.tool_call_id == start.tool_call_id and asked.tool_call.status == "pending"
    [diff] = [c for c in asked.tool_call.content if c.type == "diff"]
    assert (diff.path, diff.old_text, diff.new_text) == (path, "The answer is 42.", "The answer is 43.")
    assert [loc.path for loc in asked.tool_call.locations] == [path]
    always = next(o for o in asked.options if o.kind == "allow_always")
    assert always.name == "Allow always (this session): edit_file: notes.md in this workspace"
    assert _statuses(client, start.tool_call_id) == ["pending", "in_progress", "completed"]
    assert (workspace / "notes.md").read_text() == "# Notes\nThe answer is 43.\n"


async def test_a_command_asks_with_its_command_line_and_a_read_runs_at_once(tmp_path, mock_api, workspace):
    mock_api.script(Reply([ToolUse("read_file", {"path": "notes.md"}), ToolUse("run_shell", {"command": "echo hi"})]),
                    Reply("Done."))
    client = EditorClient()
    async with running_agent(client, agent_env(tmp_path, mock_api)) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("read and run")), 60)
    read, shell = client.of("tool_call")
    [asked] = client.permissions
    assert [c.content.text for c in asked.tool_call.content] == ["echo hi"]
    assert asked.tool_call.kind == "execute"
    assert _statuses(client, read.tool_call_id) == ["in_progress", "completed"]  # nothing to approve
    assert _statuses(client, shell.tool_call_id) == ["pending", "in_progress", "completed"]


async def test_a_cancelled_command_ends_with_a_final_update_that_says_so(tmp_path, mock_api, workspace):
    mock_api.script(Reply([ToolUse("run_shell", {"command": "echo $$ > pid.txt; sleep 60"})]), Reply("Next."))
    client = EditorClient()
    async with running_agent(client, agent_env(tmp_path, mock_api)) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=prompt("wait a minute")))
        await wait_until(lambda: (workspace / "pid.txt").exists() and (workspace / "pid.txt").read_text().strip())
        await conn.cancel(session_id=sid)
        assert (await asyncio.wait_for(turn, 30)).stop_reason == "cancelled"
        [start] = client.of("tool_call")
        final = [u for u in client.of("tool_call_update") if u.tool_call_id == start.tool_call_id][-1]
        assert final.status == "failed" and "cancelled" in final.title
        assert any(isinstance(c, schema.ContentToolCallContent) and "cancelled by the user" in c.content.text
                   for c in final.content)
        assert _statuses(client, start.tool_call_id) == ["pending", "in_progress", "failed"]

        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("what next?")), 60)
    newest = mock_api.message_bodies[-1]["messages"][-1]["content"]
    assert newest[0]["type"] == "tool_result" and "cancelled" in newest[0]["content"]
    assert newest[-1] == {"type": "text", "text": "what next?"}  # the user's newest words end the request


async def test_with_the_demo_model_the_prompt_after_a_cancel_is_answered_as_itself(tmp_path, workspace):
    client = EditorClient()
    async with running_agent(client, agent_env(tmp_path, None)) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=prompt("run sleep 30")))
        await wait_until(lambda: client.of("tool_call_update"))  # approved: running
        await conn.cancel(session_id=sid)
        assert (await asyncio.wait_for(turn, 30)).stop_reason == "cancelled"
        [start] = client.of("tool_call")
        assert _statuses(client, start.tool_call_id)[-1] == "failed"

        before = len(client.updates)
        answer = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("read notes.md")), 60)
        assert answer.stop_reason == "end_turn"
        later = _said_since(client, before)
        assert "notes.md" in later and "has 2 lines" in later, later
        assert "sleep 30" not in later
        before = len(client.updates)
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("list the files")), 60)
        listed = _said_since(client, before)
        assert "entries" in listed and "sleep 30" not in listed

