"""The ACP wire under hostile or silent clients (issue 30, finding 12): the real `agentls acp` process,
driven by the SDK's client side (acp_client.py).

- A line of JSON nested deeper than json's recursion limit ended the process; it is answered now.
- fs/read_text_file and terminal/create delegated to a client that never answers fail the tool call
  after AGENTLS_ACP_CLIENT_SECONDS (30 s by default; 1 s here) with an error naming the editor,
  and the turn goes on; a cancel still ends such a wait at once.
"""

from __future__ import annotations

import asyncio
from typing import Any

from acp_client import EditorClient, agent_env, prompt, running_agent, wait_until
from agentls.mock_api import Reply, Text, ToolUse
from test_acp_edges import Inbox, _write

TURN_BOUND = 60  # seconds: far past the 1 s client wait; main waited forever


def nested(depth: int) -> bytes:
    return (b'{"jsonrpc": "2.0", "id": "deep%d", "method": "session/prompt", "params": {"sessionId": "x", '
            b'"prompt": %s}}' % (depth, b"[" * depth + b"]" * depth))


async def test_json_nested_1500_deep_is_answered_and_the_agent_stays_up(tmp_path, mock_api, workspace):
    inbox = Inbox()
    client = EditorClient()
    mock_api.script(Reply("still here"))
    async with running_agent(client, agent_env(tmp_path, mock_api), observers=[inbox]) as (conn, process):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await _write(process, nested(1500), nested(100_000), nested(900), nested(100))
        await wait_until(lambda: inbox.answer("deep900") and inbox.answer("deep100")
                         and len(inbox.errors_without_id()) >= 2)
        assert [e["error"]["code"] for e in inbox.errors_without_id()] == [-32700, -32700]
        assert "nested too deeply" in str(inbox.errors_without_id()[0])
        assert inbox.answer("deep900")["error"]["code"] == -32600
        assert inbox.answer("deep100")["error"]["code"] == -32600
        answer = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("are you alive?")), TURN_BOUND)
        assert answer.stop_reason == "end_turn" and client.text() == "still here"
        assert process.returncode is None
    assert process.returncode == 0


class SilentEditor(EditorClient):
    """Offers fs and terminal, then never answers a read or a terminal/create."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []
        self.never = asyncio.Event()

    async def read_text_file(self, session_id: str, path: str, line: int | None = None, limit: int | None = None,
                             **kwargs: Any) -> Any:
        self.asked.append("fs/read_text_file")
        await self.never.wait()

    async def create_terminal(self, session_id: str, command: str, *args: Any, **kwargs: Any) -> Any:
        self.asked.append("terminal/create")
        await self.never.wait()


async def test_a_client_that_never_answers_a_read_or_a_terminal_fails_the_call_not_the_turn(
        tmp_path, mock_api, workspace):
    mock_api.script(Reply([ToolUse("read_file", {"path": "notes.md"})]), Reply([ToolUse("run_shell",
                                                                                        {"command": "echo hi"})]),
                    Reply([Text("done")]))
    client = SilentEditor()
    env = agent_env(tmp_path, mock_api, AGENTLS_ACP_CLIENT_SECONDS="1")
    async with running_agent(client, env, fs=True, terminal=True) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        answer = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("read, then run")), TURN_BOUND)
    assert answer.stop_reason == "end_turn" and client.asked == ["fs/read_text_file", "terminal/create"]
    messages = mock_api.message_bodies[-1]["messages"]
    read, run = messages[2]["content"][0], messages[4]["content"][0]
    assert read["is_error"] and "did not answer fs/read_text_file for notes.md within 1 s" in read["content"]
    assert run["is_error"] and "did not answer terminal/create within 1 s" in run["content"]


async def test_a_cancel_ends_a_wait_for_a_silent_client_at_once(tmp_path, mock_api, workspace):
    mock_api.script(Reply([ToolUse("read_file", {"path": "notes.md"})]), Reply([Text("next")]))
    client = SilentEditor()
    async with running_agent(client, agent_env(tmp_path, mock_api), fs=True) as (conn, _):  # the 30 s default
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=prompt("read")))
        await wait_until(lambda: client.asked)
        await conn.cancel(session_id=sid)
        assert (await asyncio.wait_for(turn, 20)).stop_reason == "cancelled"
