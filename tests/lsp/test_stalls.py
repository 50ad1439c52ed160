"""Issue 8, points 4 and 6 over LSP with the real server: nothing a tool meets stalls the server.

While a catastrophic regex search, a FIFO or a long shell command is in
progress, `agent/cost` is answered in under a second and Stop
($/cancelRequest) ends the turn in under a second. The figures are printed
(`pytest -s`).
"""

from __future__ import annotations

import asyncio
import os
import time

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from agentls.mock_api import Reply, Text, ToolUse
from .helpers import options_for, wait_until

# They measure how long things take: one at a time under pytest-xdist (./run test), never side by side.
pytestmark = pytest.mark.xdist_group("timing")

SLOW_TEXT = Reply([Text("slow " * 400)], chunk_delay=0.02)  # keeps the turn alive after the tool


async def _cost_latency(editor) -> float:
    started = time.monotonic()
    cost = await asyncio.wait_for(editor.request("agent/cost"), 120)
    assert "usd" in cost
    return time.monotonic() - started


async def _stop_latency(editor, turn: asyncio.Future, msg_id: str) -> float:
    started = time.monotonic()
    editor.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
    with pytest.raises(JsonRpcException) as cancelled:
        await asyncio.wait_for(turn, 120)
    assert cancelled.value.code == -32800
    return time.monotonic() - started


def _tool_started(editor, tool: str) -> bool:
    return any(e["kind"] == "toolStart" and e.get("tool") == tool for e in editor.events)


async def test_catastrophic_regex_while_cost_and_stop_are_asked(start_editor, mock_api, workspace):
    (workspace / "bundle.min.js").write_text(("a" * 30 + "!\n") * 200)
    editor = await start_editor(options_for(mock_api))
    mock_api.script(Reply([ToolUse("grep_search", {"pattern": "(a+)+$"})]), SLOW_TEXT)
    turn = asyncio.ensure_future(editor.request("agent/chat", {"prompt": "grep"}, msg_id="redos"))
    await wait_until(lambda: _tool_started(editor, "grep_search"))
    cost = await _cost_latency(editor)
    await wait_until(lambda: "textDelta" in editor.kinds(), timeout=120)
    stop = await _stop_latency(editor, turn, "redos")
    print(f"\nReDoS (a+)+$: agent/cost answered in {cost * 1000:.0f} ms, Stop ended the turn in {stop * 1000:.0f} ms")
    assert cost < 1 and stop < 1
    grep_end = next(e for e in editor.events if e["kind"] == "toolEnd")
    assert not grep_end["isError"] and "no matches" in grep_end["summary"]


async def test_fifo_reads_refused_without_stranding_the_server(start_editor, mock_api, workspace):
    os.mkfifo(workspace / "pipe")
    editor = await start_editor(options_for(mock_api))
    calls = [ToolUse("read_file", {"path": "pipe"}) for _ in range(7)]
    calls.append(ToolUse("grep_search", {"pattern": "x", "path": "pipe"}))
    mock_api.script(Reply(calls), SLOW_TEXT)
    turn = asyncio.ensure_future(editor.request("agent/chat", {"prompt": "read the pipe"}, msg_id="fifo"))
    await wait_until(lambda: _tool_started(editor, "read_file"))
    cost = await _cost_latency(editor)
    await wait_until(lambda: len([e for e in editor.events if e["kind"] == "toolEnd"]) == 8, 30)
    await wait_until(lambda: "textDelta" in editor.kinds(), timeout=30)
    stop = await _stop_latency(editor, turn, "fifo")
    print(f"\nFIFO: agent/cost answered in {cost * 1000:.0f} ms, Stop ended the turn in {stop * 1000:.0f} ms")
    assert cost < 1 and stop < 1
    results = mock_api.message_bodies[-1]["messages"][-1]["content"]
    assert len(results) == 8 and all(r["is_error"] and "not a regular file" in r["content"] for r in results)
    await asyncio.wait_for(editor.request("agent/clear"), 5)  # after 6 stuck reads it used to hang


async def test_stop_during_a_long_shell_command(start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api))
    mock_api.script(Reply([ToolUse("run_shell", {"command": "sleep 60"})]))
    turn = asyncio.ensure_future(editor.request("agent/chat", {"prompt": "sleep"}, msg_id="sleepy"))
    await wait_until(lambda: editor.confirms)
    await asyncio.sleep(0.3)  # the command is running
    cost = await _cost_latency(editor)
    stop = await _stop_latency(editor, turn, "sleepy")
    print(f"\nshell `sleep 60`: agent/cost answered in {cost * 1000:.0f} ms, "
          f"Stop ended the turn in {stop * 1000:.0f} ms")
    assert cost < 1 and stop < 1
