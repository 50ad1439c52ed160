"""The session store: every conversation in one SQLite database (WAL) under the data folder.

`open_session(root)` never fails at start: it gives the workspace's last
conversation no other process holds (or a new one), restorable whatever is on
disk, and lists in `session.problems` what the user should hear about, in
plain words. A database another process keeps locked is waited for (bounded);
a front end that already has a conversation (new chat, resume) is then told
"busy" (StoreBusy) instead of going on in an unsaved copy.
Modules: schema (tables, connections), db (opening, damage), salvage, base
(transactions), lease (one writer per session), records (rows → valid
history), session (one conversation), refs (`context://` texts, stored once),
sessions (list/resume/rename/delete), prune (the size limit of stored
originals, vacuum), rewind (checkpoint rows), jsonl (export/import), legacy
(migration).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from .base import Database, SessionInUse, StoreBusy, StoreError
from .db import busy_wait_seconds, data_dir, in_memory
from .legacy import migrate
from .prune import prune, store_limit_bytes
from .records import INTERRUPTED, Restored, repaired
from .schema import BUSY_MS
from .session import Session
from .sessions import SessionInfo, SessionStore, workspace_key

__all__ = ["INTERRUPTED", "Database", "Restored", "Session", "SessionInUse", "SessionInfo", "SessionStore", "StoreBusy",
           "StoreError", "data_dir", "open_session", "repaired", "workspace_key"]

log = logging.getLogger(__name__)

BUSY = "the session store is busy (another agentls process is writing to it); try again in a moment"
FIRST_BACKOFF, MAX_BACKOFF = 0.05, 1.0  # seconds between attempts on a locked database
IN_USE_WAIT_SECONDS, IN_USE_POLL = 5.0, 0.1  # a session another process holds: how long it is asked for again


def open_session(root: Path, *, new: bool = False, base: Path | None = None,
                 session_id: str | None = None, raise_busy: bool = False, window: str | None = None) -> Session:
    """The session a front end starts with; at worst an unsaved, in-memory one (with a problem saying so).

    A database another process keeps locked is waited for, with backoff, for busy_wait_seconds();
    then `raise_busy` (a conversation is already open: new chat, resume) raises StoreBusy instead of
    going on in memory. With `session_id`, any StoreError is raised. `window`: the client's name for its
    window, under which the session is remembered too (sessions.py: each window goes back to its own).
    """
    deadline = time.monotonic() + busy_wait_seconds()
    in_use_until = time.monotonic() + IN_USE_WAIT_SECONDS
    delay = FIRST_BACKOFF
    while True:
        left = deadline - time.monotonic()
        busy_ms = max(1, min(BUSY_MS, int(left * 1000)))
        try:
            last = left <= 0 and not raise_busy and session_id is None  # the start of a window: in memory, said
            return _open_once(root, new, base, session_id, busy_ms, last=last, window=window)
        except SessionInUse:
            # The process holding it may be closing it (an editor restarting its agent loads at once, before
            # the old one has let go): asked again for a moment, then "open in another window".
            if time.monotonic() >= in_use_until:
                raise
            time.sleep(IN_USE_POLL)
            continue
        except StoreBusy:
            if time.monotonic() >= deadline:
                if raise_busy or session_id is not None:
                    raise StoreBusy(BUSY) from None
                continue  # the last attempt goes on in memory, and says why
        time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
        delay = min(delay * 2, MAX_BACKOFF)


def _open_once(root: Path, new: bool, base: Path | None, session_id: str | None, busy_ms: int, last: bool,
               window: str | None = None) -> Session:
    """One attempt; StoreBusy when another process holds the lock (unless this is the `last` attempt)."""
    folder = base or data_dir()
    db = Database.open(folder, busy_ms)
    if db.busy and not last:
        db.close()
        raise StoreBusy(BUSY)
    problems: list[str] = []
    try:
        if db.saved:
            problems = migrate(db, root, folder, raise_busy=not last)
        session = SessionStore(db).open_session(root, new=new, session_id=session_id, window=window)
        db.set_busy_timeout(BUSY_MS)  # the attempt's shortened wait was for opening only
        _prune(db)
    except StoreError as error:
        if session_id is not None or (isinstance(error, StoreBusy) and not last):
            db.close()
            raise
        reason = f"it stayed locked by another process for {busy_wait_seconds():g} s" \
            if isinstance(error, StoreBusy) else str(error)
        session = _unsaved_copy(db, root, reason)
    except Exception as error:  # noqa: BLE001 - whatever happened, the agent starts
        session = _unsaved_copy(db, root, f"{type(error).__name__}: {error}")
    session._owns_db = True
    session.problems[:0] = problems
    return session


def _prune(db: Database) -> None:
    """Old sessions' stored originals beyond the size limit go (prune.py); never a reason not to start."""
    if not db.saved:
        return
    try:
        prune(db, store_limit_bytes())
    except StoreError as error:
        log.info("pruning the session store failed: %s", error)


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
            index = db.read("SELECT ref, digest, bytes FROM ref_index WHERE session = ?", (session_id,))
            with memory.transaction() as connection:
                connection.execute("INSERT INTO sessions (id, workspace, created, updated) VALUES (?, ?, 0, 0)",
                                   (session_id, workspace_key(root)))
                connection.executemany("INSERT INTO records (session, seq, kind, at, body) VALUES (?, ?, ?, ?, ?)",
                                       [(session_id, *row) for row in records])
                connection.executemany("INSERT INTO refs (session, ref, text) VALUES (?, ?, ?)",
                                       [(session_id, *row) for row in refs])
                connection.executemany("INSERT INTO ref_index (session, ref, digest, bytes) VALUES (?, ?, ?, ?)",
                                       [(session_id, *row) for row in index])
    except (StoreError, Exception):  # noqa: BLE001 - nothing readable: an empty conversation
        pass
    finally:
        db.close()
    return SessionStore(memory).open_session(root)
