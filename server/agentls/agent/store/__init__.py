"""The session store: every conversation in one SQLite database (WAL) under the data folder.

`open_session(root)` never fails: it gives the workspace's last conversation no
other process holds (or a new one), restorable whatever is on disk, and lists
in `session.problems` what the user should hear about, in plain words.
Modules: schema (tables, connections), db (opening, damage), salvage, base
(transactions), lease (one writer per session), records (rows → valid
history), session (one conversation), sessions (list/resume/rename/delete),
jsonl (export/import), legacy (migration).
"""

from __future__ import annotations

from pathlib import Path

from .base import Database, StoreError
from .db import data_dir, in_memory
from .legacy import migrate
from .records import INTERRUPTED, Restored, repaired
from .session import Session
from .sessions import SessionInfo, SessionStore, workspace_key

__all__ = ["INTERRUPTED", "Database", "Restored", "Session", "SessionInfo", "SessionStore", "StoreError",
           "data_dir", "open_session", "repaired", "workspace_key"]


def open_session(root: Path, *, new: bool = False, base: Path | None = None,
                 session_id: str | None = None) -> Session:
    """The session a front end starts with. Never raises: at worst an unsaved, in-memory one."""
    folder = base or data_dir()
    db = Database.open(folder)
    problems: list[str] = []
    try:
        if db.saved:
            problems = migrate(db, root, folder)
        session = SessionStore(db).open_session(root, new=new, session_id=session_id)
    except StoreError as error:
        if session_id is not None:
            db.close()
            raise
        session = _unsaved_copy(db, root, str(error))
    except Exception as error:  # noqa: BLE001 - whatever happened, the agent starts
        session = _unsaved_copy(db, root, f"{type(error).__name__}: {error}")
    session._owns_db = True
    session.problems[:0] = problems
    return session


def _unsaved_copy(db: Database, root: Path, reason: str) -> Session:
    """The database can be read but not written (read-only, full): its last conversation, in memory."""
    memory = Database(in_memory(f"the session database cannot be written ({reason})"))
    try:
        rows = db.read("SELECT id FROM sessions WHERE workspace = ? ORDER BY updated DESC LIMIT 1",
                       (workspace_key(root),))
        if rows:
            (session_id,) = rows[0]
            records = db.read("SELECT seq, kind, at, body FROM records WHERE session = ?", (session_id,))
            refs = db.read("SELECT ref, text FROM refs WHERE session = ?", (session_id,))
            with memory.transaction() as connection:
                connection.execute("INSERT INTO sessions (id, workspace, created, updated) VALUES (?, ?, 0, 0)",
                                   (session_id, workspace_key(root)))
                connection.executemany("INSERT INTO records (session, seq, kind, at, body) VALUES (?, ?, ?, ?, ?)",
                                       [(session_id, *row) for row in records])
                connection.executemany("INSERT INTO refs (session, ref, text) VALUES (?, ?, ?)",
                                       [(session_id, *row) for row in refs])
    except (StoreError, Exception):  # noqa: BLE001 - nothing readable: an empty conversation
        pass
    finally:
        db.close()
    return SessionStore(memory).open_session(root)
