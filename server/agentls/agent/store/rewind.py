"""Checkpoint rows, and cutting a conversation back to a checkpoint or forking it there.

Checkpoints live in the `checkpoints` table of the session database, beside
the conversation they belong to: a rewind that cuts the conversation and
marks its checkpoints is one transaction, so after a crash or a restart the
conversation and the checkpoint list agree. The cut records move to the
`rewound` table (kept, never deleted); usage records stay where they are,
since the money was spent. Bodies are ASCII JSON: a path whose name is not UTF-8
(a lone surrogate in Python) is kept as a JSON `\\udcXX` escape and reads back the same.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from .refs import copy_refs
from .session import prompt_text

if TYPE_CHECKING:
    from .base import Database

Row = tuple[str, int, float, dict[str, Any]]  # (id, seq, at, body)


def save_checkpoint(db: Database, session_id: str, checkpoint_id: str, seq: int, at: float,
                    body: dict[str, Any]) -> None:
    with db.transaction() as connection:
        connection.execute("INSERT OR REPLACE INTO checkpoints (session, id, seq, at, body) VALUES (?, ?, ?, ?, ?)",
                           (session_id, checkpoint_id, seq, at, json.dumps(body)))


def update_checkpoint(db: Database, session_id: str, checkpoint_id: str, body: dict[str, Any] | None) -> None:
    """Replace a checkpoint's body in place (its order kept), or delete it (body None)."""
    with db.transaction() as connection:
        if body is None:
            connection.execute("DELETE FROM checkpoints WHERE session = ? AND id = ?", (session_id, checkpoint_id))
        else:
            connection.execute("UPDATE checkpoints SET body = ? WHERE session = ? AND id = ?",
                               (json.dumps(body), session_id, checkpoint_id))


def checkpoint_rows(db: Database, session_id: str) -> list[Row]:
    """The session's checkpoints in the order they were taken (unreadable bodies are left out)."""
    rows = []
    for checkpoint_id, seq, at, raw in db.read(
            "SELECT id, seq, at, body FROM checkpoints WHERE session = ? ORDER BY rowid", (session_id,)):
        try:
            body = json.loads(raw)
        except (TypeError, ValueError):
            continue
        if isinstance(body, dict):
            rows.append((checkpoint_id, seq, at, body))
    return rows


def cut_after(db: Database, session_id: str, seq: int) -> int:
    """Cut the conversation back to record `seq` (the turns after it leave); how many prompts left."""
    with db.transaction() as connection:
        rows = connection.execute("SELECT seq, kind, body FROM records WHERE session = ? AND seq > ? "
                                  "AND kind != 'usage'", (session_id, seq)).fetchall()
        prompts = sum(1 for _, kind, body in rows if kind == "message" and _is_prompt(body))
        connection.execute("INSERT INTO rewound SELECT session, seq, kind, at, body FROM records "
                           "WHERE session = ? AND seq > ? AND kind != 'usage'", (session_id, seq))
        connection.execute("DELETE FROM records WHERE session = ? AND seq > ? AND kind != 'usage'", (session_id, seq))
        for checkpoint_id, raw in connection.execute(
                "SELECT id, body FROM checkpoints WHERE session = ? AND seq >= ?", (session_id, seq)).fetchall():
            body = json.loads(raw)
            if body.get("kind", "turn") == "turn":
                body["cut"] = True
                connection.execute("UPDATE checkpoints SET body = ? WHERE session = ? AND id = ?",
                                   (json.dumps(body), session_id, checkpoint_id))
        connection.execute("UPDATE sessions SET turns = MAX(turns - ?, 0), updated = ? WHERE id = ?",
                           (prompts, time.time(), session_id))
    return prompts


def fork_at(db: Database, session_id: str, seq: int, before: float, new_id: str, workspace: str) -> None:
    """A new session holding the conversation up to record `seq` and the checkpoints taken before `before`."""
    now = time.time()
    with db.transaction() as connection:
        title = connection.execute("SELECT title FROM sessions WHERE id = ?", (session_id,)).fetchone()
        connection.execute("INSERT INTO sessions (id, workspace, title, created, updated, turns) "
                           "VALUES (?, ?, ?, ?, ?, 0)",
                           (new_id, workspace, f"{title[0]} (fork)" if title and title[0] else "", now, now))
        connection.execute("INSERT INTO records (session, seq, kind, at, body) SELECT ?, seq, kind, at, body "
                           "FROM records WHERE session = ? AND seq <= ?", (new_id, session_id, seq))
        copy_refs(connection, session_id, new_id)
        connection.execute("INSERT INTO checkpoints (session, id, seq, at, body) SELECT ?, id, seq, at, body "
                           "FROM checkpoints WHERE session = ? AND at < ? ORDER BY rowid", (new_id, session_id, before))
        turns = sum(1 for (body,) in connection.execute(
            "SELECT body FROM records WHERE session = ? AND kind = 'message'", (new_id,)).fetchall()
            if _is_prompt(body))
        connection.execute("UPDATE sessions SET turns = ? WHERE id = ?", (turns, new_id))


def _is_prompt(raw: Any) -> bool:
    try:
        message = json.loads(raw)["message"]
    except (TypeError, ValueError, KeyError):
        return False
    return isinstance(message, dict) and message.get("role") == "user" and bool(prompt_text(message))
