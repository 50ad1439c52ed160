"""The sessions of a workspace: open (resume the last free one, or a new one),
list, resume by id, rename, delete. Everything issue-10 front ends need."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from ...model.pricing import cost_usd
from ...context.usage import Usage
from ..visible import excerpt
from .base import Database, SessionInUse, StoreError
from .lease import is_live, lease_of
from .records import clean_usage, usage_usd
from .session import Session, claim, new_session_id


def workspace_key(root: Path) -> str:
    return str(Path(root).resolve())


@dataclass
class SessionInfo:
    id: str
    workspace: str
    title: str
    created: float
    updated: float
    turns: int
    tokens: int  # input + output + cache tokens of every request
    cost_usd: float
    in_use: bool  # open in a window (this process included)



def matches(info: SessionInfo, query: str) -> bool:
    """Every word of the query occurs in the title or the id (case-insensitive)."""
    title, ident = (info.title or "(untitled)").lower(), info.id.lower()
    return all(word in title or word in ident for word in query.lower().split())


class SessionStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    @classmethod
    def open(cls, base: Path | None = None) -> SessionStore:
        return cls(Database.open(base))

    def close(self) -> None:
        self.db.close()

    # -- opening a conversation -------------------------------------------------------

    def open_session(self, root: Path, *, new: bool = False, session_id: str | None = None,
                     window: str | None = None) -> Session:
        """The session `window` (else the workspace) had open last, else the workspace's most recent session
        no other process holds, a new one (new=True, or none free), or the one asked for (StoreError if it is
        unknown, another workspace's or in use)."""
        key, now = workspace_key(root), time.time()
        with self.db.transaction() as connection:
            if session_id is not None:
                if not _belongs(connection, session_id, key):
                    raise StoreError(f"no session {excerpt(session_id)} in this workspace")
                claimed = claim(session_id, connection, now)
                if claimed is None:
                    raise SessionInUse(f"session {excerpt(session_id)} is open in another window")
                return self._opened(connection, session_id, claimed, key, now, window)
            if not new:
                for candidate in _candidates(connection, key, window):
                    claimed = claim(candidate, connection, now)
                    if claimed is not None:
                        return self._opened(connection, candidate, claimed, key, now, window)
            fresh = self.create_row(connection, key, now) if new else new_session_id()  # else: created on first write
            claimed = claim(fresh, connection, now)
            assert claimed is not None  # a new random id has no lease, and the transaction keeps others out
            return self._opened(connection, fresh, claimed, key, now, window)

    def _opened(self, connection, session_id: str, claimed: tuple[str, int], key: str, now: float,
                window: str | None) -> Session:
        """The session this workspace (and window) has open now: remembered, so that a restart opens it again."""
        connection.execute("INSERT INTO opened (workspace, session, at) VALUES (?, ?, ?) "
                           "ON CONFLICT (workspace) DO UPDATE SET session = excluded.session, at = excluded.at",
                           (key, session_id, now))
        if window is not None:
            connection.execute("INSERT INTO opened_by_window (workspace, window, session, at) VALUES (?, ?, ?, ?) "
                               "ON CONFLICT (workspace, window) DO UPDATE SET session = excluded.session, "
                               "at = excluded.at", (key, window, session_id, now))
        return Session(self.db, session_id, *claimed, workspace=key, owns_db=False)

    def last_opened(self, root: Path) -> str | None:
        """The session the workspace had open last (None: none remembered)."""
        rows = self.db.read("SELECT session FROM opened WHERE workspace = ?", (workspace_key(root),))
        return rows[0][0] if rows else None

    @staticmethod
    def create_row(connection, key: str, now: float, session_id: str | None = None, title: str = "") -> str:
        session_id = session_id or new_session_id()
        connection.execute("INSERT INTO sessions (id, workspace, title, created, updated, turns) "
                           "VALUES (?, ?, ?, ?, ?, 0)",
                           (session_id, key, title, now, now))
        return session_id

    # -- issue 10: list, rename, delete -----------------------------------------------

    def sessions(self, root: Path | None = None) -> list[SessionInfo]:
        """Sessions of a workspace (or all), most recently updated first."""
        where, params = ("WHERE workspace = ?", (workspace_key(root),)) if root is not None else ("", ())
        rows = self.db.read(f"SELECT id, workspace, title, created, updated, turns FROM sessions {where} "
                            "ORDER BY updated DESC, created DESC", params)
        return [self._info(row) for row in rows]

    def info(self, session_id: str) -> SessionInfo | None:
        rows = self.db.read("SELECT id, workspace, title, created, updated, turns FROM sessions WHERE id = ?",
                            (session_id,))
        return self._info(rows[0]) if rows else None

    def _info(self, row: tuple) -> SessionInfo:
        session_id, workspace, title, created, updated, turns = row
        tokens, usd = 0, 0.0
        for (body,) in self.db.read("SELECT body FROM records WHERE session = ? AND kind = 'usage'", (session_id,)):
            usage = _usage_of(body)
            if usage is not None:
                model, counts, paid = usage
                tokens += sum(counts.values())
                # as /cost priced it when it was made; older records: at today's prices (unknown adds nothing)
                usd += paid if paid is not None else (cost_usd(model, Usage(**counts)) or 0.0)
        with self.db.lock:
            in_use = is_live(lease_of(self.db.connection, session_id), time.time())
        return SessionInfo(session_id, workspace, title if isinstance(title, str) else "", float(created),
                           float(updated), int(turns), tokens, usd, in_use)

    def rename(self, session_id: str, title: str, *, workspace: Path | None = None, owner: str | None = None) -> bool:
        """False when there is no such session (in `workspace`, when given); refused (StoreError) while
        a window other than the lease `owner` (the caller's own, when it holds the session) has it open."""
        with self.db.transaction() as connection:
            if not _belongs(connection, session_id, workspace_key(workspace) if workspace is not None else None):
                return False
            lease = lease_of(connection, session_id)
            if lease is not None and lease[0] != owner and is_live(lease, time.time()):
                raise StoreError(f"session {excerpt(session_id)} is open in another window; rename it there")
            return connection.execute("UPDATE sessions SET title = ? WHERE id = ?",
                                      (title.strip(), session_id)).rowcount > 0

    def delete(self, session_id: str, *, workspace: Path | None = None) -> bool:
        """Delete a session and all its rows (False when there is none, in `workspace` when given);
        refused (StoreError) while another window has it open. Its checkpoints' file contents stay in
        the shared blob store (agent/checkpoints/blobs.py), which other sessions' checkpoints may name."""
        with self.db.transaction() as connection:
            if not _belongs(connection, session_id, workspace_key(workspace) if workspace is not None else None):
                return False
            if is_live(lease_of(connection, session_id), time.time()):
                raise StoreError(f"session {excerpt(session_id)} is open; close it first")
            for table in ("records", "refs", "ref_index", "leases", "set_aside", "checkpoints", "rewound", "views",
                          "view_messages", "opened", "opened_by_window"):
                connection.execute(f"DELETE FROM {table} WHERE session = ?", (session_id,))
            return connection.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount > 0


def _candidates(connection, key: str, window: str | None) -> list[str]:
    """The sessions a start may open, in order: the one this window had open last, the one this workspace had
    open last (a chat resumed from the history goes on after a reload even when nothing was sent in it), then
    the most recently updated."""
    remembered = []
    if window is not None:
        remembered += connection.execute(
            "SELECT o.session FROM opened_by_window o JOIN sessions s ON s.id = o.session "
            "WHERE o.workspace = ? AND o.window = ? AND s.workspace = ?", (key, window, key)).fetchall()
    remembered += connection.execute("SELECT o.session FROM opened o JOIN sessions s ON s.id = o.session "
                                     "WHERE o.workspace = ? AND s.workspace = ?", (key, key)).fetchall()
    recent = connection.execute(
        "SELECT id FROM sessions WHERE workspace = ? ORDER BY updated DESC, created DESC", (key,)).fetchall()
    return list(dict.fromkeys(candidate for (candidate,) in [*remembered, *recent]))


def _belongs(connection, session_id: str, key: str | None) -> bool:
    """The session exists (and, when `key` is given, belongs to that workspace)."""
    row = connection.execute("SELECT workspace FROM sessions WHERE id = ?", (session_id,)).fetchone()
    return row is not None and (key is None or row[0] == key)


def _usage_of(body) -> tuple[str, dict[str, int], float | None] | None:
    try:
        value = json.loads(body)
    except (TypeError, ValueError):
        return None
    usage = clean_usage(value) if isinstance(value, dict) else None
    return None if usage is None else (*usage, usage_usd(value))
