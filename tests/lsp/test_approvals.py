"""Approvals: agent/confirm, the showMessageRequest fallback, and refusal when nobody can be asked."""

from __future__ import annotations

from lsprotocol import types

from agentls.mock_api import Reply, Text, ToolUse
from .helpers import options_for

RUN = Reply([ToolUse("run_shell", {"command": "touch ran.txt"})])


async def test_denied_confirm_runs_nothing_and_tells_the_model(start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api))
    editor.confirm_answer = {"approved": False}
    mock_api.script(RUN, Reply([Text("understood")]))

    await editor.request("agent/chat", {"prompt": "run it"})

    assert editor.confirms == [{"kind": "shell", "command": "touch ran.txt", "rules": ["run_shell(touch ran.txt)"]}]
    assert not (workspace / "ran.txt").exists()
    told = mock_api.message_bodies[-1]["messages"][-1]["content"][0]
    assert told["is_error"] is True and "did not approve" in told["content"]


async def test_approved_and_remembered_for_the_session(start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api))
    editor.confirm_answer = {"approved": True, "remember": True}
    mock_api.script(RUN, Reply([Text("ran")]), RUN, Reply([Text("ran again")]))
    await editor.request("agent/chat", {"prompt": "run it"})
    (workspace / "ran.txt").unlink()
    await editor.request("agent/chat", {"prompt": "run it again"})
    assert (workspace / "ran.txt").exists() and len(editor.confirms) == 1


async def test_edit_confirm_carries_path_and_diff(start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api))
    editor.confirm_answer = {"approved": False}
    mock_api.script(Reply([ToolUse("edit_file", {"path": "notes.md", "old_text": "42", "new_text": "41"})]),
                    Reply([Text("ok")]))
    await editor.request("agent/chat", {"prompt": "edit"})
    confirm = editor.confirms[0]
    assert confirm["kind"] == "edit" and confirm["path"] == "notes.md"
    assert "-The answer is 42." in confirm["diff"] and "+The answer is 41." in confirm["diff"]
    assert editor.edits == [] and "42" in (workspace / "notes.md").read_text()


async def test_without_supports_confirm_the_server_falls_back_to_show_message_request(
        start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api, confirm=False))
    mock_api.script(RUN, Reply([Text("ran")]))
    await editor.request("agent/chat", {"prompt": "run it"})
    assert editor.confirms == []
    asked = editor.message_requests[0]
    assert "touch ran.txt" in asked.message and [a.title for a in asked.actions] == ["Approve", "Reject"]
    assert (workspace / "ran.txt").exists()


async def test_show_message_request_reject_or_dismiss_refuses(start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api, confirm=False))
    editor.message_answer = None  # the user closed the message
    mock_api.script(RUN, Reply([Text("ok")]))
    await editor.request("agent/chat", {"prompt": "run it"})
    assert len(editor.message_requests) == 1 and not (workspace / "ran.txt").exists()


async def test_a_client_that_cannot_be_asked_gets_a_refusal(start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api, confirm=False), capabilities=types.ClientCapabilities())
    mock_api.script(RUN, Reply([Text("refused")]))
    await editor.request("agent/chat", {"prompt": "run it"})
    assert editor.confirms == [] and editor.message_requests == []
    assert not (workspace / "ran.txt").exists()
    told = mock_api.message_bodies[-1]["messages"][-1]["content"][0]
    assert told["is_error"] is True


async def test_approval_modes_from_settings(start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api, approvals={"shell": "never"}))
    mock_api.script(RUN, Reply([Text("not allowed")]))
    await editor.request("agent/chat", {"prompt": "run it"})
    assert editor.confirms == [] and not (workspace / "ran.txt").exists()
