"""Subagents over ACP (issue 34 item 1), through the SDK's own client side and the real `agentls acp` process.

A `task` call is one tool call whose content streams the child's steps (tool_call_update), then ends with
the child's answer; a child's write asks for permission on that same tool call, naming the child.
"""

from __future__ import annotations

import asyncio

from acp import schema

from acp_client import EditorClient, agent_env, prompt, running_agent
from agentls.mock_api import Reply, Text, ToolUse


def content_text(update) -> str:
    return "\n".join(c.content.text for c in update.content or []
                     if isinstance(c, schema.ContentToolCallContent) and isinstance(c.content, schema.TextContentBlock))


async def test_a_child_streams_its_steps_as_updates_of_one_tool_call(tmp_path, mock_api, workspace):
    mock_api.script(Reply([ToolUse("task", {"description": "scan notes", "prompt": "ZETA: scan the notes",
                                            "tools": ["read_file", "write_file"]})]),
                    Reply([Text("The child answered.")]))
    mock_api.script_for("ZETA:", Reply([ToolUse("read_file", {"path": "notes.md"})]),
                        Reply([ToolUse("write_file", {"path": "summary.md", "content": "42\n"})]),
                        Reply([Text("The notes say 42.")]))
    client = EditorClient()
    async with running_agent(client, agent_env(tmp_path, mock_api)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await asyncio.wait_for(conn.prompt(session_id=session.session_id, prompt=prompt("scan")), 60)
        assert answer.stop_reason == "end_turn"
    [call] = client.of("tool_call")  # the child's own calls are not tool calls of the session
    updates = [u for u in client.of("tool_call_update") if u.tool_call_id == call.tool_call_id]
    shown = [content_text(u) for u in updates]
    progress = [text for text in shown if "Subagent “scan notes”" in text]
    assert len(progress) >= 3  # started, each step, finished: streamed, not only at the end
    assert any("→ " in text and "notes.md" in text for text in progress)
    assert any("✓" in text for text in progress)
    assert "done:" in progress[-1] and "/transcript" in progress[-1]
    assert updates[-1].status == "completed" and "The notes say 42." in shown[-1]
    [asked] = client.permissions  # the child's write: asked once, on the task's tool call, naming the child
    assert asked.tool_call.tool_call_id == call.tool_call_id
    assert "subagent “scan notes”" in (asked.tool_call.title or "")
    assert (workspace / "summary.md").read_text() == "42\n"
