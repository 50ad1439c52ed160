"""Issue 19, finding 4: a busy session database never demotes a window to an in-memory copy.

Another process holds the write lock of sessions.db (a long transaction); the
window waits for it with backoff, for a bounded time, and then either gets
its new conversation saved, or answers -32002 and keeps the one it had.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import time

import pytest
from pygls.exceptions import JsonRpcException

from agentls.mock_api import Reply, Text
from .helpers import options_for, server_env, wait_until

HOLD = """
import sqlite3, sys, time
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(float(sys.argv[2])) if float(sys.argv[2]) > 0 else sys.stdin.readline()
connection.execute("COMMIT")
"""


async def hold_write_lock(data_dir, seconds: float) -> asyncio.subprocess.Process:
    """Another process takes the database's write lock; `seconds` <= 0: until its stdin closes."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", HOLD, str(data_dir / "sessions.db"), str(seconds),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    assert await asyncio.wait_for(process.stdout.readline(), 30) == b"locked\n"
    return process


def stored_prompts(data_dir, session_id: str) -> list[str]:
    with sqlite3.connect(data_dir / "sessions.db") as db:
        rows = db.execute("SELECT body FROM records WHERE session = ? AND kind = 'message'", (session_id,)).fetchall()
    return [body for (body,) in rows]


async def test_a_seven_second_write_lock_during_new_session_leaves_the_new_chat_saved(
        start_editor, mock_api, data_dir):
    editor = await start_editor(options_for(mock_api))
    await wait_until(lambda: editor.usages)
    mock_api.script(Reply([Text("first")]))
    await editor.request("agent/chat", {"prompt": "before the lock"})

    holder = await hold_write_lock(data_dir, 7)
    started = time.monotonic()
    new_id = (await editor.request("agent/newSession"))["sessionId"]
    waited = time.monotonic() - started
    await holder.wait()
    mock_api.script(Reply([Text("second")]))
    await editor.request("agent/chat", {"prompt": "after the lock"})

    assert not [m.message for m in editor.client.messages if "will not be saved" in m.message]
    assert any("after the lock" in body for body in stored_prompts(data_dir, new_id)), \
        f"the new chat was not saved (newSession answered after {waited:.1f} s)"


async def test_a_lock_held_past_the_bound_answers_busy_and_keeps_the_current_session(
        start_editor, mock_api, data_dir):
    editor = await start_editor(options_for(mock_api), env=server_env(data_dir, AGENTLS_STORE_BUSY_SECONDS="1"))
    await wait_until(lambda: editor.usages)
    mock_api.script(Reply([Text("first")]))
    await editor.request("agent/chat", {"prompt": "kept conversation"})
    current = (await editor.request("agent/sessions"))["current"]

    holder = await hold_write_lock(data_dir, 0)
    try:
        for method, params in (("agent/newSession", {}), ("agent/resume", {"sessionId": "20250101-000000-abcdef"})):
            with pytest.raises(JsonRpcException) as busy:
                await editor.request(method, params)
            assert busy.value.code == -32002 and "the session store is busy" in busy.value.message, method
    finally:
        holder.stdin.close()
        await holder.wait()
    mock_api.script(Reply([Text("second")]))
    await editor.request("agent/chat", {"prompt": "still the same chat"})
    assert (await editor.request("agent/sessions"))["current"] == current
    assert any("still the same chat" in body for body in stored_prompts(data_dir, current))
