"""The working view of a session: what the next request needs, so a start need not replay every record.

The records stay the conversation of record; a view is derived from them and
kept beside them (tables `views` and `view_messages`, schema.py): one row per
message of the history as the last request carried it, and the context
engine's state (context/engine_state.py). A writer replaces only the rows of
messages that changed, so keeping the view in step costs what a turn adds.

A view says which records it includes (those up to `seq`) and is checked
against them when read: the last conversation record it includes must still
be there with the same time. A rewind that cut the conversation before it,
a damaged database salvaged without it, or rows that do not decode make the
view unusable, and the session is restored by replaying its records, as
before there were views.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from .base import Database, StoreError

CONVERSATION = "kind != 'usage'"  # usage records stay through a rewind; they anchor nothing


@dataclass
class StoredView:
    seq: int  # the last record the view includes
    rows: list[dict[str, Any]]  # one per message, in order
    state: dict[str, Any]


def write_view(connection: sqlite3.Connection, session_id: str, seq: int, rows: dict[int, str], length: int,
               state: str, *, full: bool) -> bool:
    """Inside a transaction: store the rows that changed and the state; False when there is nothing to anchor."""
    anchor = connection.execute(f"SELECT seq, at FROM records WHERE session = ? AND seq <= ? AND {CONVERSATION} "
                                "ORDER BY seq DESC LIMIT 1", (session_id, seq)).fetchone()
    if anchor is None:
        return False
    if full:
        connection.execute("DELETE FROM view_messages WHERE session = ?", (session_id,))
    connection.executemany("INSERT OR REPLACE INTO view_messages (session, idx, body) VALUES (?, ?, ?)",
                           [(session_id, index, body) for index, body in rows.items()])
    connection.execute("DELETE FROM view_messages WHERE session = ? AND idx >= ?", (session_id, length))
    connection.execute("INSERT OR REPLACE INTO views (session, seq, anchor_seq, anchor_at, state) "
                       "VALUES (?, ?, ?, ?, ?)", (session_id, seq, anchor[0], anchor[1], state))
    return True


def drop_view(connection: sqlite3.Connection, session_id: str) -> None:
    """Inside a transaction: forget the session's view (the next start replays its records)."""
    connection.execute("DELETE FROM views WHERE session = ?", (session_id,))
    connection.execute("DELETE FROM view_messages WHERE session = ?", (session_id,))


def read_view(db: Database, session_id: str) -> StoredView | None:
    """The session's view if it is whole and still matches its records; None otherwise (or on any error)."""
    try:
        found = db.read("SELECT seq, anchor_seq, anchor_at, state FROM views WHERE session = ?", (session_id,))
        if not found:
            return None
        seq, anchor_seq, anchor_at, state = found[0]
        anchor = db.read(f"SELECT at FROM records WHERE session = ? AND seq = ? AND {CONVERSATION}",
                         (session_id, anchor_seq))
        later = db.read(f"SELECT 1 FROM records WHERE session = ? AND seq > ? AND seq <= ? AND {CONVERSATION} "
                        "LIMIT 1", (session_id, anchor_seq, seq))
        if not anchor or anchor[0][0] != anchor_at or later:
            return None  # cut by a rewind, or not the records it was made from
        bodies = db.read("SELECT idx, body FROM view_messages WHERE session = ? ORDER BY idx", (session_id,))
    except StoreError:
        return None
    if any(index != position for position, (index, _) in enumerate(bodies)):
        return None  # a row is missing
    try:
        rows = [json.loads(body) for _, body in bodies]
        parsed = json.loads(state)
    except (TypeError, ValueError, RecursionError):
        return None
    if not isinstance(parsed, dict) or not all(isinstance(row, dict) for row in rows) or not isinstance(seq, int):
        return None
    return StoredView(seq, rows, parsed)
