"""agent/chat end to end: streaming, live buffers, progress, failures."""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcException

from agentls.mock_api import Fault, Reply, Text, ToolUse
from .helpers import SECRET, options_for, wait_until


async def test_chat_streams_and_reads_the_unsaved_buffer_not_the_disk(start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api))
    uri = editor.open(workspace / "notes.md", "# Notes\nThe answer is 42.\n", version=1)
    editor.change(uri, 2, (1, 14), (1, 16), "43 (unsaved)")  # incremental: 42 → 43 (unsaved)
    mock_api.script(Reply([Text("Let me read it."), ToolUse("read_file", {"path": "notes.md"})]),
                    Reply([Text("The buffer says 43.")]))

    result = await editor.request("agent/chat", {"prompt": "what does notes.md say?"})

    tool_result = mock_api.message_bodies[-1]["messages"][-1]["content"][0]
    assert tool_result["type"] == "tool_result"
    assert "The answer is 43 (unsaved)." in tool_result["content"] and "42" not in tool_result["content"]
    assert (workspace / "notes.md").read_text() == "# Notes\nThe answer is 42.\n"
    assert set(result) == {"turnId", "text", "stopReason", "usage"}
    assert result["text"].endswith("The buffer says 43.") and result["stopReason"] == "end_turn"
    assert set(result["usage"]) == {"inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens"}
    assert editor.text_of(result["turnId"]) == result["text"]
    kinds = editor.kinds()
    assert kinds.index("toolStart") < kinds.index("toolEnd") and "usage" in kinds
    start = next(e for e in editor.events if e["kind"] == "toolStart")
    assert start == {"turnId": result["turnId"], "kind": "toolStart", "toolUseId": start["toolUseId"],
                     "tool": "read_file", "summary": "read_file notes.md"}
    end = next(e for e in editor.events if e["kind"] == "toolEnd")
    assert set(end) == {"turnId", "kind", "toolUseId", "tool", "summary", "isError", "resultChars", "marker"}
    assert end["isError"] is False


async def test_attachment_without_text_is_filled_from_the_buffer(start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api))
    uri = editor.open(workspace / "app.py", "def main():\n    return 'from the buffer'\n")
    mock_api.script(Reply([Text("ok")]))
    await editor.request("agent/chat", {"prompt": "explain", "attachments": [
        {"uri": uri, "range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 5}}},
        {"uri": "untitled:Scratch", "text": "scratch text"}]})
    sent = mock_api.message_bodies[-1]["messages"][-1]["content"]
    assert "Attached app.py (lines 2-2)" in sent[0]["text"] and "from the buffer" in sent[0]["text"]
    assert "def main" not in sent[0]["text"]
    assert "scratch text" in sent[1]["text"] and sent[-1]["text"] == "explain"


async def test_work_done_progress_reports_tool_calls(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api))
    editor.client.progress_reports["chat-progress"] = []
    mock_api.script(Reply([ToolUse("read_file", {"path": "notes.md"})]), Reply([Text("done")]))
    await editor.request("agent/chat", {"prompt": "read", "workDoneToken": "chat-progress"})
    values = editor.client.progress_reports["chat-progress"]
    assert values[0].kind == "begin" and values[0].title == "Agent"
    assert any(v.kind == "report" and v.message == "Reading notes.md" for v in values)
    assert values[-1].kind == "end"


async def test_context_usage_after_startup_and_every_model_call(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api))
    await wait_until(lambda: editor.usages)
    first = editor.usages[0]
    assert set(first) == {"used", "window", "effectiveWindow", "utilization", "level", "categories", "layers",
                          "nextRequest", "autoCompactAt", "model", "demo", "modelWindow"}
    assert first["demo"] is False
    before = len(editor.usages)
    mock_api.script(Reply([ToolUse("read_file", {"path": "notes.md"})]), Reply([Text("done")]))
    await editor.request("agent/chat", {"prompt": "read"})
    assert len(editor.usages) >= before + 3  # two model calls and one batch of tool results


async def test_model_failure_is_an_internal_error_without_the_key(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api))
    mock_api.inject(Fault.http_status(400, message=f"bad request (key {SECRET})"))
    with pytest.raises(JsonRpcException) as failure:
        await editor.request("agent/chat", {"prompt": "hello"})
    assert failure.value.code == -32603
    assert "400" in failure.value.message and SECRET not in failure.value.message
    errors = [e for e in editor.events if e["kind"] == "error"]
    assert errors and all(SECRET not in e["message"] for e in errors)
    mock_api.script(Reply([Text("fine again")]))
    assert (await editor.request("agent/chat", {"prompt": "again"}))["text"] == "fine again"


async def test_bad_params_name_the_field(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api))
    cases = [
        ({}, "prompt"), ({"prompt": 3}, "prompt"), ({"prompt": "  "}, "prompt"),
        ({"prompt": "x", "attachments": {}}, "attachments"),
        ({"prompt": "x", "attachments": [{"uri": 1}]}, "attachments[0].uri"),
        ({"prompt": "x", "attachments": [{"uri": "file:///etc/passwd"}]}, "attachments[0].uri"),
        ({"prompt": "x", "attachments": [{"uri": "untitled:1", "range": {"start": {"line": -1}}}]},
         "attachments[0].range.start.line"),
        ({"prompt": "x", "workDoneToken": 1.5}, "workDoneToken"),
        ("just a string", "params"),
    ]
    for params, field in cases:
        with pytest.raises(JsonRpcException) as failure:
            await editor.request("agent/chat", params)
        assert failure.value.code == -32602 and field in failure.value.message, (params, failure.value.message)
    with pytest.raises(JsonRpcException) as failure:
        await editor.request("agent/compact", {"instructions": ["no"]})
    assert failure.value.code == -32602 and "instructions" in failure.value.message
    assert mock_api.message_bodies == []
