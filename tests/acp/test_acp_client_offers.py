"""What the client offers at initialize: its files (fs/*, unsaved buffers included) and its terminal.

Paths stay confined to the session's roots exactly as on the disk path: a
path outside is refused before the client is asked anything.
"""

from __future__ import annotations

import asyncio

from acp_client import EditorClient, agent_env, prompt, running_agent, wait_until
from agentls.mock_api import Reply, Text, ToolUse


async def test_files_are_read_from_the_clients_buffers_and_written_through_it(tmp_path, mock_api, workspace):
    outside = tmp_path / "secret.txt"
    outside.write_text("do not read")
    notes = str((workspace / "notes.md").resolve())
    app = str((workspace / "app.py").resolve())
    mock_api.script(
        Reply([ToolUse("read_file", {"path": "notes.md"}), ToolUse("read_file", {"path": "../secret.txt"})]),
        Reply([ToolUse("edit_file", {"path": "app.py", "old_text": "'hello'", "new_text": "'bye'"}),
               ToolUse("write_file", {"path": "notes.md", "content": "# Notes\nrewritten\n"})]),
        Reply([ToolUse("read_file", {"path": "app.py"})]),
        Reply([Text("done")]))
    client = EditorClient()
    client.buffers[notes] = "# Notes\nUNSAVED in the editor\n"
    async with running_agent(client, agent_env(tmp_path, mock_api), fs=True) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        answer = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("edit")), 60)
    assert answer.stop_reason == "end_turn"

    first, secret, *_ = client.of("tool_call_update")
    assert "UNSAVED in the editor" in first.content[0].content.text  # the buffer, not the disk
    assert secret.status == "failed" and "refused" in secret.content[0].content.text
    assert str(outside) not in client.reads and notes in client.reads

    assert client.writes == [(app, "def main():\n    return 'bye'\n"), (notes, "# Notes\nrewritten\n")]
    assert (workspace / "app.py").read_text() == "def main():\n    return 'hello'\n"  # the editor holds it
    edit, write = [u for u in client.of("tool_call") if u.kind == "edit"]
    diff = edit.content[0]
    assert (diff.type, diff.path, diff.old_text, diff.new_text) == ("diff", app, "'hello'", "'bye'")
    assert write.content[0].old_text == "# Notes\nUNSAVED in the editor\n"  # what the write replaces
    assert [p.tool_call.title for p in client.permissions] == ["Edit app.py", "Write notes.md"]
    last_read = client.of("tool_call_update")[-1]
    assert "return 'bye'" in last_read.content[0].content.text  # read back through the client


async def test_shell_commands_run_in_the_clients_terminal(tmp_path, mock_api, workspace):
    mock_api.script(Reply([ToolUse("run_shell", {"command": "echo hi from $PWD; echo key=[$ANTHROPIC_API_KEY]; exit 3"})]),
                    Reply([Text("ran")]))
    client = EditorClient()
    async with running_agent(client, agent_env(tmp_path, mock_api), terminal=True) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("run")), 60)
    [terminal] = client.terminals.values()
    assert terminal.released
    assert client.terminal_env[0]["PAGER"] == "cat" and client.terminal_env[0]["ANTHROPIC_API_KEY"] == ""
    result = mock_api.message_bodies[-1]["messages"][-1]["content"][0]["content"]
    assert result == f"hi from {workspace.resolve()}\nkey=[]\n[exit code 3]"
    shown = [u for u in client.of("tool_call_update") if u.content and any(c.type == "terminal" for c in u.content)]
    assert shown and shown[0].content[-1].terminal_id == "term-1"  # embedded while it runs
    end = client.of("tool_call_update")[-1]
    assert end.status == "completed" and end.content[0].type == "terminal" and "[exit code 3]" in end.content[1].content.text


async def test_cancelling_a_command_in_the_clients_terminal_kills_and_releases_it(tmp_path, mock_api, workspace):
    mock_api.script(Reply([ToolUse("run_shell", {"command": "sleep 60"})]), Reply([Text("next")]))
    client = EditorClient()
    async with running_agent(client, agent_env(tmp_path, mock_api), terminal=True) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=prompt("wait")))
        await wait_until(lambda: client.terminals)
        await conn.cancel(session_id=sid)
        assert (await asyncio.wait_for(turn, 30)).stop_reason == "cancelled"
        [terminal] = client.terminals.values()
        await wait_until(lambda: terminal.released, 15)
        assert terminal.process.returncode is not None  # killed
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("and now")), 60)
    result = mock_api.message_bodies[-1]["messages"][2]["content"][0]
    assert result["type"] == "tool_result" and "cancelled" in result["content"]
