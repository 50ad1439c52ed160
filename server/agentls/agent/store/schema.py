"""The database's shape and how a connection to it is made: shared by opening (db.py), salvage and leases.

WAL mode: one writer at a time, readers never blocked, a commit is whole or
absent after a crash. `prepare` raises sqlite3.DatabaseError on a file that
is damaged or whose tables are not ours; what to do then is db.py's business.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

BUSY_MS = 5000  # writes are a few rows; another process holds the lock only that long

# table -> (columns, table constraint); a table with other columns is not ours.
TABLES: dict[str, tuple[tuple[str, ...], str]] = {
    "sessions": (("id TEXT PRIMARY KEY", "workspace TEXT NOT NULL", "title TEXT NOT NULL DEFAULT ''",
                  "created REAL NOT NULL", "updated REAL NOT NULL", "turns INTEGER NOT NULL DEFAULT 0"), ""),
    "records": (("session TEXT NOT NULL", "seq INTEGER NOT NULL", "kind TEXT NOT NULL", "at REAL NOT NULL",
                 "body TEXT NOT NULL"), "PRIMARY KEY (session, seq)"),
    "refs": (("session TEXT NOT NULL", "ref TEXT NOT NULL", "text TEXT NOT NULL"), "PRIMARY KEY (session, ref)"),
    "leases": (("session TEXT PRIMARY KEY", "owner TEXT NOT NULL", "pid INTEGER NOT NULL", "host TEXT NOT NULL",
                "heartbeat REAL NOT NULL"), ""),
    "migrated": (("source TEXT PRIMARY KEY", "at REAL NOT NULL"), ""),
    # records that could not be read, moved out of the conversation (kept, never deleted)
    "set_aside": (("session TEXT", "seq INTEGER", "kind", "at", "body"), ""),
    # checkpoints of the agent's file changes (agent/checkpoints): one row per turn or rewind
    "checkpoints": (("session TEXT NOT NULL", "id TEXT NOT NULL", "seq INTEGER NOT NULL", "at REAL NOT NULL",
                     "body TEXT NOT NULL"), "PRIMARY KEY (session, id)"),
    # conversation records cut off by a rewind (kept, never deleted; usage records stay in `records`)
    "rewound": (("session TEXT", "seq INTEGER", "kind", "at", "body"), ""),
    # the working view (store/views.py): the context engine's state after record `seq`, derived from the
    # records and checked against them (the last conversation record it includes: anchor_seq, anchor_at)
    "views": (("session TEXT PRIMARY KEY", "seq INTEGER NOT NULL", "anchor_seq INTEGER NOT NULL",
               "anchor_at REAL NOT NULL", "state TEXT NOT NULL"), ""),
    "view_messages": (("session TEXT NOT NULL", "idx INTEGER NOT NULL", "body TEXT NOT NULL"),
                      "PRIMARY KEY (session, idx)"),
    # One row per ref: the sha256 of its text and the bytes its own refs row holds (0 for a ref whose text
    # an earlier ref of the session already holds: it reads that one). Sizes for pruning (prune.py), digests
    # for storing a text once (re-reading a context:// ref must not store it again; refs.py).
    "ref_index": (("session TEXT NOT NULL", "ref TEXT NOT NULL", "digest TEXT", "bytes INTEGER NOT NULL"),
                  "PRIMARY KEY (session, ref)"),
    # The conversation last opened in a workspace (resumed, started, forked, or the one a start chose): a
    # restart opens it again, so a chat resumed from the history without a new prompt is the one that goes on.
    "opened": (("workspace TEXT PRIMARY KEY", "session TEXT NOT NULL", "at REAL NOT NULL"), ""),
    # The same per window, for clients that name their window (initializationOptions.windowId): two windows on
    # one folder each go back to their own conversation after a restart, whichever starts first.
    "opened_by_window": (("workspace TEXT NOT NULL", "window TEXT NOT NULL", "session TEXT NOT NULL",
                          "at REAL NOT NULL"), "PRIMARY KEY (workspace, window)"),
}
INDEXES = ("CREATE INDEX IF NOT EXISTS sessions_of_workspace ON sessions (workspace, updated)",
           "CREATE INDEX IF NOT EXISTS ref_index_by_digest ON ref_index (session, digest)")


def connect(path: Path | str, uri: bool = False, busy_ms: int = BUSY_MS) -> sqlite3.Connection:
    # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE … COMMIT).
    connection = sqlite3.connect(str(path), timeout=busy_ms / 1000, isolation_level=None, check_same_thread=False,
                                 uri=uri)
    connection.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
    return connection


def column_names(table: str) -> list[str]:
    return [column.split()[0] for column in TABLES[table][0]]


def prepare(connection: sqlite3.Connection, *, check: bool = True) -> None:
    """WAL, our tables; raises sqlite3.DatabaseError when the file is damaged or not ours."""
    if check:
        verdict = connection.execute("PRAGMA quick_check").fetchone()
        if not verdict or verdict[0] != "ok":
            raise sqlite3.DatabaseError(f"integrity check: {verdict[0] if verdict else 'no answer'}")
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = NORMAL")  # WAL + NORMAL: a crash loses no commit, a power cut the last few
    present = {name for (name,) in connection.execute("SELECT name FROM sqlite_master")}
    wanted = [*TABLES, *(statement.split()[5] for statement in INDEXES)]
    if not set(wanted) <= present:
        # One transaction for what is missing (a new file, or a table a newer version added): each statement
        # on its own would append the schema page to the WAL again. A file that has everything needs no
        # write lock to be opened (another process may hold it: store/__init__.py waits, bounded).
        connection.execute("BEGIN IMMEDIATE")
        try:
            for table, (columns, constraint) in TABLES.items():
                connection.execute(
                    f"CREATE TABLE IF NOT EXISTS {table} ({', '.join(filter(None, (*columns, constraint)))})")
            for statement in INDEXES:
                connection.execute(statement)
            connection.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
            raise
    for table in TABLES:
        if [row[1] for row in connection.execute(f"PRAGMA table_info({table})")] != column_names(table):
            raise sqlite3.DatabaseError(f"table {table} is not agentls's")
