"""Issue 19, finding 8: an editor's answer cannot break a tool or stall the server.

One location whose URI holds `%00` used to fail the whole tool (the valid locations lost);
220,000 locations blocked the event loop for about 10 s. Now a bad item is skipped and
counted, and at most a documented number of locations (10,000) is processed, off the loop:
the server is as responsive as decoding the 28 MB message itself allows.

What is measured is work, not wall time: the CPU time the server's main thread (its event loop)
spends while one cheap request waits for its answer, against the CPU time decoding the message
takes here. Wall times of two processes on a busy machine are not comparable (a run with four
test workers on two cores saw a 9.4 s wait against a 2.4 s decode measured a moment earlier).
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import time
from pathlib import Path

from agentls.mock_api import Reply, Text, ToolUse
from .helpers import options_for, server_command, server_env
from .rawclient import RawClient

PROCESSED = 10_000  # the documented cap (README, "Limits")


def span(line: int) -> dict:
    return {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 1}}


def main_thread_cpu(pid: int) -> float:
    """CPU seconds (user + system) the process's main thread has used (Linux /proc: utime, stime)."""
    stat = Path(f"/proc/{pid}/task/{pid}/stat").read_text()
    fields = stat.rsplit(")", 1)[1].split()  # after "pid (name)": state is field 3, utime 14, stime 15
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tool_result(mock_api) -> dict:
    return mock_api.message_bodies[-1]["messages"][-1]["content"][0]


async def answer_references(editor, locations) -> None:
    @editor.client.feature("agent/editorQuery")
    async def editor_query(ls, params):
        return {"locations": locations}


async def test_a_malformed_location_is_skipped_and_counted_not_fatal(start_editor, mock_api, workspace):
    editor = await start_editor({**options_for(mock_api), "editorQueries": ["references"]})
    app = (workspace / "app.py").as_uri()
    await answer_references(editor, [
        {"uri": app, "range": span(0)}, {"uri": app.replace("app.py", "a%00pp.py"), "range": span(3)},
        "not an object", {"uri": 42, "range": span(1)}, {"uri": app, "range": span(1)}])
    mock_api.script(Reply([ToolUse("find_references", {"path": "app.py", "line": 1, "symbol": "main"})]),
                    Reply([Text("ok")]))
    await editor.request("agent/chat", {"prompt": "who uses main?"})
    result = tool_result(mock_api)
    assert not result.get("is_error"), result["content"]
    lines = result["content"].splitlines()
    assert "app.py:1: def main():" in lines and "app.py:2: return 'hello'" in lines
    assert "3 malformed locations of the editor's answer were skipped" in result["content"]


async def test_two_hundred_twenty_thousand_locations_are_capped_and_processed_off_the_event_loop(
        mock_api, workspace, data_dir):
    # A bare client: it answers the editor query with ready bytes, so what is timed is the server alone.
    client = RawClient()
    answer = json.dumps(
        {"locations": [{"uri": (workspace / "app.py").as_uri(), "range": span(n)} for n in range(220_000)]}).encode()
    client.raw_results["agent/editorQuery"] = answer
    gc.disable()  # as the server decodes a big message
    started = time.thread_time()
    json.loads(answer)
    decoding = time.thread_time() - started  # CPU time reading the answer's JSON takes on this machine
    gc.enable()
    # started plainly (not through the fork server) so that the process is the server itself
    await client.start(*server_command(plain=True), env=server_env(data_dir))
    assert client.process is not None
    pid = client.process.pid
    try:
        options = {**options_for(mock_api), "editorQueries": ["references"]}
        await client.request("initialize", {"capabilities": {}, "rootUri": workspace.as_uri(),
                                            "initializationOptions": options})
        client.notify("initialized", {})
        await client.request("agent/cost", timeout=120)  # the agent is up
        mock_api.script(Reply([ToolUse("find_references", {"path": "app.py", "line": 1, "symbol": "main"})]),
                        Reply([Text("many")]))
        turn = asyncio.ensure_future(client.request("agent/chat", {"prompt": "who uses main?"}, timeout=300))
        waits = []  # (wall, the loop's CPU) while each request waited
        while not turn.done():  # a cheap request every 50 ms: what does the loop do before it answers?
            asked, cpu = time.monotonic(), main_thread_cpu(pid)
            await client.request("agent/cost", timeout=300)
            waits.append((time.monotonic() - asked, main_thread_cpu(pid) - cpu))
            await asyncio.sleep(0.05)
        assert "result" in await turn
    finally:
        await client.close()
    content = tool_result(mock_api)["content"]
    wall, busy = max(waits, key=lambda w: w[1])
    print(f"\nmost loop CPU during one agent/cost wait: {busy:.2f} s (that wait {wall:.2f} s; {len(waits)} asked); "
          f"json.loads of the {len(answer) / 1e6:.0f} MB answer here: {decoding:.2f} s CPU")
    # The loop may work while it decodes the message (the stdlib decoder holds the GIL), never on its items.
    assert busy < 3 * decoding + 1.0, f"the event loop worked {busy:.1f} s CPU while a request waited"
    assert f"the editor listed 220,000; the first {PROCESSED:,} were read" in content
    assert content.startswith("10000 references to main") and "… and 9900 more" in content
