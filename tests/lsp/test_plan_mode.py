"""agent/mode over LSP (issue 34), with pytest-lsp against the real server and the mock API.

In plan mode a write and a shell call are refused without an agent/confirm, the plan lands in the task list;
"Approve plan" (agent/mode act) lets the next turn act on it; the mode survives agent/compact and a restart.
"""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from agentls.agent.plan_mode import PLAN_REASON
from agentls.mock_api import Reply, Text, ToolUse

from .helpers import options_for

PLAN = [{"content": "Create hello.txt", "status": "pending"}]


def tool_results(body: dict) -> list[dict]:
    return [b for b in body["messages"][-1]["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]


async def test_plan_mode_refuses_unasked_then_approve_acts_and_it_survives_compact_and_restart(
        start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api))
    assert await editor.request("agent/mode") == {"mode": "act"}
    assert await editor.request("agent/mode", {"mode": "plan"}) == {"mode": "plan"}
    with pytest.raises(JsonRpcInvalidParams):
        await editor.request("agent/mode", {"mode": "yolo"})
    mock_api.script(Reply([ToolUse("write_file", {"path": "hello.txt", "content": "hi\n"}),
                           ToolUse("run_shell", {"command": "touch made"})]),
                    Reply([ToolUse("todo_write", {"todos": PLAN})]), Reply([Text("Plan: create hello.txt.")]))
    await editor.request("agent/chat", {"prompt": "create hello.txt"})
    assert editor.confirms == [] and editor.edits == []  # refused, nobody asked
    assert not (workspace / "hello.txt").exists() and not (workspace / "made").exists()
    write, shell = tool_results(mock_api.message_bodies[1])
    assert all(r["is_error"] and "plan mode is on" in r["content"] for r in (write, shell))
    assert (await editor.request("agent/todos"))["todos"] == PLAN
    refused_cards = [e for e in editor.events if e["kind"] == "toolEnd" and e["approval"] == "refused"]
    assert [e["reason"] for e in refused_cards] == [PLAN_REASON, PLAN_REASON]  # the cards say why

    mock_api.script(Reply([Text("<summary>1. Goal: hello.txt</summary>")]))
    assert (await editor.request("agent/compact", {}))["compacted"]
    assert await editor.request("agent/mode") == {"mode": "plan"}
    await editor.client.shutdown_session()

    again = await start_editor(options_for(mock_api))
    assert await again.request("agent/mode") == {"mode": "plan"}
    assert await again.request("agent/mode", {"mode": "act"}) == {"mode": "act"}  # Approve plan
    mock_api.script(Reply([ToolUse("write_file", {"path": "hello.txt", "content": "hi\n"})]), Reply([Text("done")]))
    await again.request("agent/chat", {"prompt": "Go ahead with the plan."})
    approved = mock_api.message_bodies[-2]
    assert "# Agent mode: act" in str(approved["messages"]) and "Carry out the plan" in str(approved["messages"])
    assert "# Agent mode" not in approved["system"]
    [written] = tool_results(mock_api.message_bodies[-1])
    assert not written.get("is_error")
    assert len(again.confirms) == 1 and len(again.edits) == 1  # acting: asked as usual, written by the editor
