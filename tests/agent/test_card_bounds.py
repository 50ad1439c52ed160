"""One big approved write keeps a bounded card (issue 30, finding 13): the transcript of record stores,
and every resume sends, at most CARD_DIFF_CHARS of the diff, marked as cut; the whole change is in the
file and its checkpoint. Real SDK against the mock Messages API, real sessions in SQLite."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict

from agentls.agent import events as ev

from agentls.mock_api import Reply, Text, ToolUse

MB = 1024 * 1024
CARD_DIFF_CHARS = 100_000  # transcript.py's documented cap (README, Limits)
CONTENT = "".join(f"line {i:07d} of a generated file, long enough to weigh\n" for i in range(80_000))  # ~4.5 MB


def stored_bytes(data_dir) -> int:
    """What the store holds, every column of every table (the WAL's high-water mark is SQLite's business)."""
    db = sqlite3.connect(data_dir / "sessions.db")
    try:
        total = 0
        for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
            for column in [row[1] for row in db.execute(f"PRAGMA table_info({table})")]:
                total += db.execute(f"SELECT coalesce(sum(length({column})), 0) FROM {table}").fetchone()[0]
        return total
    finally:
        db.close()


async def test_a_big_approved_write_keeps_a_bounded_diff_on_its_card(make_agent, mock_api, workspace, data_dir):
    agent = make_agent()
    await agent.run_turn("hi")  # the session exists: what follows is the write's own growth
    before = stored_bytes(data_dir)
    mock_api.script(Reply([ToolUse("write_file", {"path": "big.txt", "content": CONTENT})]), Reply([Text("written")]))
    events: list = []
    await agent.run_turn("write it", events.append)
    assert (workspace / "big.txt").read_text() == CONTENT  # the whole change is in the file
    [end] = [e for e in events if isinstance(e, ev.ToolEnd)]
    assert len(end.diff) <= CARD_DIFF_CHARS and "the diff is cut here" in end.diff
    assert end.diff.startswith("--- /dev/null\n+++ b/big.txt\n") or end.diff.startswith("--- a/big.txt")
    grown = stored_bytes(data_dir) - before
    # The history keeps the model's input as it was sent (once, ~4.4 MB), the cleared input's original
    # at most 1 MB (a `context://` ref); the card adds at most its cap.
    bound = len(CONTENT) + MB + 2 * CARD_DIFF_CHARS + 100_000
    assert grown < bound, f"sessions.db grew by {grown:,} bytes for a {len(CONTENT):,}-byte write"
    session_id = agent.session.id
    await agent.aclose()

    resumed = make_agent(new=False)
    assert resumed.session.id == session_id
    entries = await resumed.transcript()
    [card] = [t for e in entries for t in e.tools if t.name == "write_file"]
    assert card.diff == end.diff and card.approval
    sent = len(json.dumps([asdict(e) for e in entries], default=str))
    assert sent < CARD_DIFF_CHARS + 100_000, f"a resume carries {sent:,} characters"

