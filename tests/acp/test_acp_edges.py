"""Bad input and cancellation: ACP errors, the process stays up, the history stays valid.

Raw lines are written to the agent's stdin beside the SDK's own requests; an
observer on the SDK connection records every message the agent wrote back.
"The history stays valid" is the mock API accepting the next request (it
refuses malformed histories with a 400, which the agent would report).
"""

from __future__ import annotations

import asyncio
import json

import pytest
from acp import RequestError
from acp_client import SECRET, EditorClient, agent_env, alive, prompt, running_agent, wait_until
from agentls.mock_api import Reply, Text, ToolUse
from agentls.mock_api.faults import Fault


class Inbox:
    """Every message the agent wrote, as the SDK connection received it."""

    def __init__(self) -> None:
        self.messages: list[dict] = []

    def __call__(self, event) -> None:
        if event.direction.value == "incoming":
            self.messages.append(event.message)

    def answer(self, ident) -> dict | None:
        return next((m for m in self.messages if m.get("id") == ident and ("result" in m or "error" in m)), None)

    def errors_without_id(self) -> list[dict]:
        return [m for m in self.messages if "id" in m and m["id"] is None and "error" in m]


async def _write(process, *lines: bytes) -> None:
    for line in lines:
        process.stdin.write(line + b"\n")
    await process.stdin.drain()


async def test_bad_input_gets_acp_errors_and_the_agent_stays_up(tmp_path, mock_api, workspace):
    inbox = Inbox()
    client = EditorClient()
    mock_api.script(Reply("still here"))
    async with running_agent(client, agent_env(tmp_path, mock_api), observers=[inbox]) as (conn, process):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await _write(process,
                     b"this is not json",
                     b'{"jsonrpc": "2.0", "id": "half", "method": "session/prompt"',  # cut off
                     b"[1, 2, 3]",
                     b'{"jsonrpc": "2.0", "id": "m1", "method": 42}',
                     b'{"jsonrpc": "1.0", "id": "v1", "method": "initialize", "params": {}}',
                     b'{"jsonrpc": "2.0", "id": "u1", "method": "session/frobnicate", "params": {}}',
                     b'{"jsonrpc": "2.0", "id": "p1", "method": "session/prompt", "params": {"sessionId": 5}}',
                     b'{"jsonrpc": "2.0", "id": "s1", "method": "session/new",'
                     b' "params": {"cwd": "relative/dir", "mcpServers": []}}',
                     b'{"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "nobody"}}',
                     b'{"jsonrpc": "2.0", "method": "no/such/notification", "params": {}}')
        await wait_until(lambda: all(inbox.answer(i) for i in ("m1", "v1", "u1", "p1", "s1"))
                         and len(inbox.errors_without_id()) >= 3)
        codes = {i: inbox.answer(i)["error"]["code"] for i in ("m1", "v1", "u1", "p1", "s1")}
        assert codes == {"m1": -32600, "v1": -32600, "u1": -32601, "p1": -32602, "s1": -32602}
        assert sorted(e["error"]["code"] for e in inbox.errors_without_id()) == [-32700, -32700, -32600]
        assert "absolute path" in json.dumps(inbox.answer("s1")["error"])

        with pytest.raises(RequestError) as unknown:
            await conn.prompt(session_id="no-such-session", prompt=prompt("hello?"))
        assert unknown.value.code == -32002 and "no-such-session" in str(unknown.value)
        with pytest.raises(RequestError) as empty:
            await conn.prompt(session_id=sid, prompt=prompt("   "))
        assert empty.value.code == -32602

        answer = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("are you alive?")), 60)
        assert answer.stop_reason == "end_turn" and client.text() == "still here"
        assert process.returncode is None
    assert process.returncode == 0  # stdin closed: it left cleanly
    assert [m["role"] for m in mock_api.message_bodies[-1]["messages"]] == ["user"]


async def test_cancel_during_a_tool_call_kills_it_and_the_history_stays_valid(tmp_path, mock_api, workspace):
    mock_api.script(Reply([ToolUse("run_shell", {"command": "echo $$ > pid.txt; sleep 60; touch late.txt"})]),
                    Reply("next"))
    client = EditorClient()
    async with running_agent(client, agent_env(tmp_path, mock_api)) as (conn, process):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=prompt("wait a minute")))
        pid_file = workspace / "pid.txt"
        await wait_until(lambda: pid_file.exists() and pid_file.read_text().strip())
        pid = int(pid_file.read_text())
        await conn.cancel(session_id=sid)
        answer = await asyncio.wait_for(turn, 30)
        assert answer.stop_reason == "cancelled"
        await wait_until(lambda: not alive(pid), 15)  # the command's process group was killed

        nxt = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("and now?")), 60)
        assert nxt.stop_reason == "end_turn" and process.returncode is None
    assert not (workspace / "late.txt").exists()
    messages = mock_api.message_bodies[-1]["messages"]
    result = messages[2]["content"][0]
    assert result["type"] == "tool_result" and "cancelled" in result["content"]
    assert messages[2]["content"][-1] == {"type": "text", "text": "and now?"}



async def test_cancel_while_the_client_is_asked_is_a_refusal(tmp_path, mock_api, workspace):
    mock_api.script(Reply([ToolUse("run_shell", {"command": "touch ran.txt"})]), Reply("ok"))
    client = EditorClient()
    client.permission_gate = asyncio.Event()  # the user does not answer
    async with running_agent(client, agent_env(tmp_path, mock_api)) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=prompt("touch it")))
        await wait_until(lambda: client.permissions)
        await conn.cancel(session_id=sid)
        assert (await asyncio.wait_for(turn, 30)).stop_reason == "cancelled"
        client.permission_gate.set()  # the late answer changes nothing
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("again")), 60)
    assert not (workspace / "ran.txt").exists()
    result = mock_api.message_bodies[-1]["messages"][2]["content"][0]
    assert result["type"] == "tool_result" and "cancelled" in result["content"]


async def test_one_prompt_at_a_time_per_session(tmp_path, mock_api, workspace):
    mock_api.script(Reply([Text("slow " * 200)], chunk_delay=0.02), Reply("quick"))
    client = EditorClient()
    async with running_agent(client, agent_env(tmp_path, mock_api)) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        other = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=prompt("talk")))
        await wait_until(lambda: client.of("agent_message_chunk", sid))
        with pytest.raises(RequestError) as busy:
            await conn.prompt(session_id=sid, prompt=prompt("me too"))
        assert busy.value.code == -32600 and "already running" in str(busy.value)
        answer = await asyncio.wait_for(conn.prompt(session_id=other, prompt=prompt("hi")), 60)
        assert answer.stop_reason == "end_turn"
        assert (await asyncio.wait_for(turn, 60)).stop_reason == "end_turn"


async def test_without_a_key_the_offline_demo_model_answers_and_says_so(tmp_path, workspace):
    client = EditorClient()
    async with running_agent(client, agent_env(tmp_path, None)) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        answer = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("list the files")), 60)
    assert answer.stop_reason == "end_turn"
    assert "offline demo model" in client.text()
    assert [u.cost.amount for u in client.of("usage_update")][-1] == 0  # the demo model costs nothing


async def test_close_resume_and_delete_and_no_secret_ever_reaches_the_client(tmp_path, mock_api, workspace):
    inbox = Inbox()
    client = EditorClient()
    mock_api.script(Reply("first"), Reply("after resume"))
    async with running_agent(client, agent_env(tmp_path, mock_api), observers=[inbox]) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("hello")), 60)
        await conn.close_session(session_id=sid)
        with pytest.raises(RequestError) as closed:
            await conn.prompt(session_id=sid, prompt=prompt("still there?"))
        assert closed.value.code == -32002

        before = len(client.updates)
        await asyncio.wait_for(conn.resume_session(session_id=sid, cwd=str(workspace), mcp_servers=[]), 60)
        assert "user_message_chunk" not in [u.session_update for _, u in client.updates[before:]]  # no replay
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("again")), 60)
        assert [m["role"] for m in mock_api.message_bodies[-1]["messages"]] == ["user", "assistant", "user"]

        mock_api.inject(Fault.http_status(400, message="bad request"))  # not retried: the turn fails
        with pytest.raises(RequestError) as failed:
            await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("break")), 60)
        assert failed.value.code == -32603 and "bad request" in str(failed.value)

        await conn.delete_session(session_id=sid)
        assert (await conn.list_sessions(cwd=str(workspace))).sessions == []
        with pytest.raises(RequestError) as gone:
            await conn.load_session(cwd=str(workspace), session_id=sid, mcp_servers=[])
        assert gone.value.code == -32002
    assert SECRET not in json.dumps(inbox.messages)
    sent = [r.headers.get("x-api-key", "") + r.headers.get("authorization", "") for r in mock_api.requests]
    assert sent and all(SECRET in header for header in sent)  # the key was in play: only the model saw it
