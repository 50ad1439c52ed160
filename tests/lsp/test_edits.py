"""Edits go through workspace/applyEdit: versioned for open buffers, CreateFile for new files."""

from __future__ import annotations

from lsprotocol import types

from agentls.mock_api import Reply, Text, ToolUse
from .helpers import options_for

ALWAYS = {"approvals": {"write": "always"}}


def last_tool_result(mock_api) -> dict:
    return mock_api.message_bodies[-1]["messages"][-1]["content"][0]


async def test_edit_of_an_open_buffer_is_a_versioned_text_document_edit(start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api, **ALWAYS))
    uri = editor.open(workspace / "app.py", "def main():\n    return 'hello'\n", version=1)
    editor.change(uri, 7, (1, 12), (1, 17), "h😀llo")  # unsaved; the emoji is 2 UTF-16 units
    mock_api.script(Reply([ToolUse("edit_file", {"path": "app.py", "old_text": "'h😀llo'", "new_text": "'bye'"})]),
                    Reply([Text("edited")]),
                    Reply([ToolUse("read_file", {"path": "app.py"})]), Reply([Text("read back")]))

    await editor.request("agent/chat", {"prompt": "change the greeting"})

    assert len(editor.edits) == 1
    change = editor.edits[0].edit.document_changes[0]
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.uri == uri and change.text_document.version == 7
    assert change.edits[0].range == types.Range(types.Position(1, 11), types.Position(1, 19))
    assert change.edits[0].new_text == "'bye'"
    assert "Edited app.py" in last_tool_result(mock_api)["content"]
    assert "hello" in (workspace / "app.py").read_text()  # the disk is the editor's business

    await editor.request("agent/chat", {"prompt": "read it back"})  # before the editor echoes a didChange
    assert "return 'bye'" in last_tool_result(mock_api)["content"]


async def test_a_rejected_edit_is_reported_to_the_model(start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api, **ALWAYS))
    editor.edit_answer = types.ApplyWorkspaceEditResult(applied=False, failure_reason="document version changed")
    editor.open(workspace / "notes.md", "# Notes\nThe answer is 42.\n", version=3)
    mock_api.script(Reply([ToolUse("edit_file", {"path": "notes.md", "old_text": "42", "new_text": "41"})]),
                    Reply([Text("I will re-read it")]))

    result = await editor.request("agent/chat", {"prompt": "change the answer"})

    assert len(editor.edits) == 1 and result["text"] == "I will re-read it"
    told = last_tool_result(mock_api)
    assert told["is_error"] is True
    assert "rejected" in told["content"] and "document version changed" in told["content"]
    end = next(e for e in editor.events if e["kind"] == "toolEnd")
    assert end["isError"] is True


async def test_a_new_file_is_created_through_the_editor(start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api, **ALWAYS))
    mock_api.script(Reply([ToolUse("write_file", {"path": "pkg/new.py", "content": "x = 1\n"})]),
                    Reply([Text("created")]))

    await editor.request("agent/chat", {"prompt": "create it"})

    changes = editor.edits[0].edit.document_changes
    target = (workspace / "pkg" / "new.py").as_uri()
    assert isinstance(changes[0], types.CreateFile) and changes[0].uri == target
    assert isinstance(changes[1], types.TextDocumentEdit) and changes[1].text_document.version is None
    assert changes[1].edits[0].new_text == "x = 1\n"
    assert "Created pkg/new.py" in last_tool_result(mock_api)["content"]


async def test_a_closed_existing_file_is_written_to_disk(start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api, **ALWAYS))
    mock_api.script(Reply([ToolUse("edit_file", {"path": "notes.md", "old_text": "42", "new_text": "41"})]),
                    Reply([Text("done")]))
    await editor.request("agent/chat", {"prompt": "edit"})
    assert editor.edits == [] and "41" in (workspace / "notes.md").read_text()


async def test_without_apply_edit_everything_goes_to_disk(start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api, **ALWAYS), capabilities=types.ClientCapabilities())
    editor.open(workspace / "notes.md", "# Notes\nThe answer is 42.\n")
    mock_api.script(Reply([ToolUse("edit_file", {"path": "notes.md", "old_text": "42", "new_text": "41"}),
                           ToolUse("write_file", {"path": "new.txt", "content": "new"})]),
                    Reply([Text("done")]))
    await editor.request("agent/chat", {"prompt": "edit"})
    assert editor.edits == []
    assert "41" in (workspace / "notes.md").read_text() and (workspace / "new.txt").read_text() == "new"
