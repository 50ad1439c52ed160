"""Issue 19, finding 9: `startupTimeout` is the real bound of an MCP server's start, stopping included.

Two servers hang at startup (one ignores SIGTERM too) with timeouts of 4 and 5 s:
agent/mcpServers answers once the longer of them has passed, not after the
clean-up of both; the server logs no "Future exception was never retrieved",
and once it is shut down neither hanging process is left running.
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
import time
import uuid
from pathlib import Path

from agentls.mock_api import Reply, Text
from .helpers import options_for, server_env

HANG = ("import signal, sys, time; "
        "signal.signal(signal.SIGTERM, signal.SIG_IGN) if sys.argv[1] == 'stubborn' else None; "
        "print('warming up', file=sys.stderr, flush=True); time.sleep(600)")
MARGIN = 2.5  # seconds beyond the longest startupTimeout: the answer's own way back, on a loaded machine


MARKER = f"agentls-hang-{uuid.uuid4().hex}"


def hanging(kind: str, timeout: float) -> dict:
    return {"command": sys.executable, "args": ["-c", HANG, kind, MARKER], "startupTimeout": timeout}


def still_running() -> list[str]:
    """Processes of the hanging servers still alive."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and MARKER.encode() in (entry / "cmdline").read_bytes():
                found.append(entry.name)
        except OSError:
            continue
    return [pid for pid in found if int(pid) != os.getpid()]


async def test_mcp_servers_answer_within_the_startup_timeout_and_log_no_unretrieved_future(
        start_editor, mock_api, data_dir, capfd):
    servers = {"slow": hanging("plain", 4), "stubborn": hanging("stubborn", 5)}
    editor = await start_editor(options_for(mock_api, mcpServers=servers), env=server_env(data_dir, AGENTLS_LOG="info"))
    first = await editor.request("agent/mcpServers", {})  # the first start loads the MCP SDK if still needed
    assert [s["state"] for s in first["servers"]] == ["failed", "failed"]

    started = time.monotonic()  # failed servers are started again: only the starts are timed
    listing = await editor.request("agent/mcpServers", {})
    elapsed = time.monotonic() - started
    with capfd.disabled():
        print(f"\nagent/mcpServers answered after {elapsed:.1f} s (startupTimeout 4 s and 5 s)")
    states = {s["name"]: (s["state"], s["error"]) for s in listing["servers"]}
    assert states["slow"][0] == states["stubborn"][0] == "failed"
    assert "did not start within 4 s" in states["slow"][1] and "did not start within 5 s" in states["stubborn"][1]
    assert "warming up" in states["stubborn"][1]
    assert elapsed < 5 + MARGIN, f"answered after {elapsed:.1f} s"

    mock_api.script(Reply([Text("the turn goes on")]))  # the servers being stopped keep nothing waiting
    await editor.request("agent/chat", {"prompt": "hello"})
    await asyncio.sleep(8)  # the stubborn server's SIGKILL comes after the SDK's grace periods
    await editor.request("agent/mcpServers", {"connect": False})
    await editor.client.shutdown_session()
    await asyncio.wait_for(editor.client._server.wait(), 60)
    gc.collect()
    for _ in range(100):  # nothing left running once the server is gone
        if not still_running():
            break
        await asyncio.sleep(0.1)
    assert still_running() == []
    err = capfd.readouterr().err
    assert "Future exception was never retrieved" not in err, err[-3000:]
    assert "Task exception was never retrieved" not in err, err[-3000:]
