"""agent/toolResult over LSP (issue 9): any client can show a tool call's input, the
result as the model saw it, which layer rewrote it and when, and the original."""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcException

from agentls.mock_api import Reply, Text, ToolUse
from .helpers import options_for, wait_until, UNBOUND_MODEL

DEEP = "zebra-7731"
FIELDS = {"toolUseId", "tool", "input", "isError", "text", "sent", "marker", "layer", "rewrittenAt", "ref",
          "originalChars", "original"}


async def test_tool_result_and_compaction_summary_reach_any_client(start_editor, mock_api, workspace):
    (workspace / "notes.md").write_text("# Notes\n" + "filler line\n" * 400 + f"the token {DEEP}\n")
    editor = await start_editor(options_for(mock_api, model=UNBOUND_MODEL))  # the client's summary
    await wait_until(lambda: editor.usages)
    mock_api.script(Reply([ToolUse("read_file", {"path": "notes.md"}, id="toolu_notes")]), Reply([Text("read")]))
    await editor.request("agent/chat", {"prompt": "read notes.md"})

    seen = await editor.request("agent/toolResult", {"toolUseId": "toolu_notes"})
    assert set(seen) == FIELDS
    assert seen["tool"] == "read_file" and seen["input"] == {"path": "notes.md"}
    assert seen["sent"] is True and seen["marker"] == "" and DEEP in seen["text"] and seen["original"] is None

    mock_api.script(Reply([Text("<summary>1. Goal: read the notes</summary>")]))
    compacted = await editor.request("agent/compact", {})
    assert compacted["compacted"] is True and compacted["tokensAfter"] < compacted["tokensBefore"]
    finished = [e for e in editor.events if e["kind"] == "compactionFinished"][-1]
    assert finished["summary"].startswith("[Conversation summary") and "1. Goal: read the notes" in finished["summary"]
    assert finished["reason"] == "manual" and finished["compacted"] is True

    gone = await editor.request("agent/toolResult", {"toolUseId": "toolu_notes", "original": True})
    assert gone["marker"] == "compacted" and gone["ref"] == "context://toolu_notes" and DEEP in gone["original"]

    with pytest.raises(JsonRpcException) as failure:
        await editor.request("agent/toolResult", {"toolUseId": "toolu_nope"})
    assert failure.value.code == -32602
    with pytest.raises(JsonRpcException) as failure:
        await editor.request("agent/toolResult", {})
    assert failure.value.code == -32602 and "toolUseId" in str(failure.value)
