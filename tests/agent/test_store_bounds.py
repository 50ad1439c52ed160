"""Issue 19, finding 2: what the session store keeps stays bounded.

The real agent against the local mock API, the SDK-written MCP test server and
the real sessions.db: one huge MCP result grows the database (and its WAL) by
at most the documented figure, reading a stored ref back stores nothing new,
old sessions' originals are pruned past the size limit (never an open one's),
and `agentls sessions vacuum` gives the space back.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess

import pytest_asyncio

from agentls.agent.loop import Agent
from agentls.agent.mcp.config import parse_servers
from agentls.agent.store import SessionStore, open_session
from agentls.agent.store.refs import RefStore
from agentls.agent.store.rewind import checkpoint_rows, fork_at, save_checkpoint
from agentls.agent.workspace import Workspace
from agentls.mock_api import Reply, Text, ToolUse
from conftest import settings_for
from mcp_fixtures import stdio_config
from forkserver import agentls_command

# The documented figures (README, "Limits"; agent/result_cap.py).
RESULT_CAP = 1_000_000  # bytes one tool result keeps
GROWTH_PER_CALL = 3_000_000  # bytes one tool call may add to sessions.db and its WAL together


def file_bytes(data_dir) -> int:
    return sum(os.path.getsize(data_dir / name) for name in ("sessions.db", "sessions.db-wal")
               if (data_dir / name).exists())


def ref_text_bytes(data_dir) -> tuple[int, int]:
    """(rows, bytes) of stored texts in the refs table."""
    with sqlite3.connect(data_dir / "sessions.db") as db:
        rows, size = db.execute("SELECT COUNT(*), COALESCE(SUM(length(CAST(text AS BLOB))), 0) FROM refs").fetchone()
    return rows, size


@pytest_asyncio.fixture
async def mcp_agent(mock_api, workspace, data_dir):
    made = []

    def build(servers: dict):
        configs, problems = parse_servers(servers)
        assert problems == []
        agent = Agent(Workspace([workspace]), settings_for(mock_api), session=open_session(workspace, new=True),
                      mcp_servers=configs)
        made.append(agent)
        return agent

    yield build
    for agent in made:
        await agent.aclose()


async def test_a_four_megabyte_mcp_result_grows_the_database_by_at_most_the_documented_cap(
        mcp_agent, mock_api, data_dir):
    agent = mcp_agent({"test": stdio_config(approval="always")})
    mock_api.script(Reply([Text("ready")]))
    await agent.run_turn("hello")  # the database, its WAL and the session exist
    before = file_bytes(data_dir)
    # 140,000 lines: 4 MB of text, four times the cap. (Not more: the MCP SDK's stdio reader takes time
    # quadratic in one message's length — 8 s of CPU for 12 MB — which a loaded machine turns into minutes.)
    mock_api.script(Reply([ToolUse("mcp__test__big", {"lines": 140_000}, id="toolu_huge")]), Reply([Text("got it")]))
    await agent.run_turn("the whole listing")
    grown = file_bytes(data_dir) - before
    print(f"\nsessions.db + WAL grew by {grown:,} bytes for a 4 MB MCP result")
    assert grown <= GROWTH_PER_CALL, f"{grown:,} bytes for one call"

    view = agent.tool_result("toolu_huge", with_original=True)
    assert view is not None and view.original is not None
    assert view.original_chars <= RESULT_CAP and "cut by agentls" in view.original
    assert view.original.startswith("row 00001 of the big result")
    sent = mock_api.message_bodies[-1]["messages"][-1]["content"][0]["content"]
    assert "context://toolu_huge" in sent and len(sent) < 60_000  # the model sees the L0 cut of it, as before
    from agentls.context.caps import RESULT_CAP_BYTES, STORE_GROWTH_PER_CALL

    assert (RESULT_CAP_BYTES, STORE_GROWTH_PER_CALL) == (RESULT_CAP, GROWTH_PER_CALL)


async def test_reading_a_stored_original_back_four_times_stores_nothing_new(make_agent, mock_api, data_dir):
    agent = make_agent()
    original = "\n".join(f"line {n:06d} of the stored original" for n in range(25_000))  # 850 KB
    mock_api.script(Reply([Text("ready")]))
    await agent.run_turn("hello")
    agent.session.store.put("context://toolu_orig", original)
    rows, stored = ref_text_bytes(data_dir)
    before = file_bytes(data_dir)
    for n in range(4):
        mock_api.script(Reply([ToolUse("read_file", {"path": "context://toolu_orig"}, id=f"toolu_read{n}")]),
                        Reply([Text(f"read {n}")]))
        await agent.run_turn(f"read it back, time {n}")
    assert ref_text_bytes(data_dir) == (rows, stored), "a read of a stored ref stored its text again"
    grown = file_bytes(data_dir) - before
    print(f"\nsessions.db + WAL grew by {grown:,} bytes for four reads of an 850 KB ref")
    assert grown < 4 * 400_000  # the history's own 50,000-character copies, nothing near 4 × 850 KB
    assert "context://toolu_read3" in mock_api.message_bodies[-1]["messages"][-1]["content"][0]["content"]
    assert agent.session.store.get("context://toolu_read3") == original  # the new ref still reads it all


def test_old_sessions_originals_are_pruned_oldest_first_never_an_open_ones_and_vacuum_gives_space_back(
        workspace, data_dir, monkeypatch):
    text = "x" * 400_000
    ids = []
    for n in range(4):
        session = open_session(workspace, new=True)
        session.message({"role": "user", "content": [{"type": "text", "text": f"conversation {n}"}]})
        session.store.put(f"context://toolu_{n}", text + str(n))
        ids.append(session.id)
        session.close()
    with sqlite3.connect(data_dir / "sessions.db") as db:  # updated: 0 is the oldest
        for n, session_id in enumerate(ids):
            db.execute("UPDATE sessions SET updated = ? WHERE id = ?", (1000.0 + n, session_id))
    probe = open_session(workspace, new=True)  # a checkpoint of the session about to lose its originals
    save_checkpoint(probe.db, ids[1], "cp-1", 1, 1000.5, {"kind": "turn", "prompt": "conversation 1", "files": []})
    probe.close()
    held = open_session(workspace, session_id=ids[0])  # the oldest, but open in a window

    monkeypatch.setenv("AGENTLS_STORE_LIMIT_MB", "1")  # room for two of the four originals
    opened = open_session(workspace, new=True)  # opening a session prunes
    listed = SessionStore(opened.db).sessions(workspace)
    assert set(ids) <= {info.id for info in listed}, "pruning removes originals, never conversations"
    assert held.store.get("context://toolu_0") == text + "0"  # open: never pruned
    reads = {n: opened.db.read("SELECT COUNT(*) FROM refs WHERE session = ?", (ids[n],))[0][0] for n in range(4)}
    assert reads == {0: 1, 1: 0, 2: 0, 3: 1}, reads  # the oldest free ones went first
    # Checkpoints are not originals: their rows stay (their file contents are blobs outside the database).
    assert [row[0] for row in checkpoint_rows(opened.db, ids[1])] == ["cp-1"]
    held.close()
    opened.close()

    env = {**os.environ, "AGENTLS_DATA_DIR": str(data_dir), "AGENTLS_STORE_LIMIT_MB": "0.5"}
    done = subprocess.run([*agentls_command(), "sessions", "--workspace", str(workspace), "vacuum"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "stored originals of 1 session removed" in done.stdout, done.stdout
    assert file_bytes(data_dir) < 600_000


def test_a_text_is_stored_once_and_every_name_reads_back_in_forks_exports_and_until_deleted(workspace, data_dir):
    """The same text under two refs is one refs row; a fork (rewind, a lost lease) and an export carry both
    names, and deleting the session leaves no index row behind."""
    from agentls.agent.store.jsonl import export_jsonl

    session = open_session(workspace, new=True)
    session.message({"role": "user", "content": [{"type": "text", "text": "read it twice"}]})
    text = "the same original\n" * 1000
    session.store.put("context://toolu_first", text)
    session.store.put("context://toolu_again", text)  # re-read: only an index row
    db = session.db
    assert db.read("SELECT COUNT(*) FROM refs WHERE session = ?", (session.id,))[0][0] == 1
    fork_at(db, session.id, 1, 2e9, "20250101-000000-f0f0f0", session.workspace)
    forked = RefStore(db, "20250101-000000-f0f0f0")
    assert forked.get("context://toolu_again") == text and forked.get("context://toolu_first") == text
    exported = [line for line in export_jsonl(db, session.id) if '"type": "ref"' in line]
    assert len(exported) == 2 and all(line.isascii() for line in exported)
    session.close()

    store = SessionStore.open()
    try:
        assert store.delete("20250101-000000-f0f0f0", workspace=workspace)
        left = store.db.read("SELECT COUNT(*) FROM ref_index WHERE session = ?", ("20250101-000000-f0f0f0",))
        assert left[0][0] == 0
    finally:
        store.close()
