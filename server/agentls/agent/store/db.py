"""The one SQLite database of all sessions: opening it, whatever is on disk.

WAL mode: one writer at a time, readers never blocked, a commit is whole or
absent after a crash. Opening never fails: a file that is not a database, or
whose schema is not ours, or that SQLite finds damaged, is renamed aside
(kept, never deleted), what rows can still be read from it are copied into a
fresh database, and the problem is returned in plain words. When no database
can be written at all (read-only or full disk), an in-memory one stands in.
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

DB_NAME = "sessions.db"
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
}
INDEXES = ("CREATE INDEX IF NOT EXISTS sessions_of_workspace ON sessions (workspace, updated)",)


def data_dir() -> Path:
    override = os.environ.get("AGENTLS_DATA_DIR")
    return Path(override) if override else Path(platformdirs.user_data_dir("agentls", appauthor=False))


@dataclass
class Opened:
    connection: sqlite3.Connection
    path: Path | None  # None: in memory, nothing is saved
    problems: list[str] = field(default_factory=list)


def connect(path: Path | str, uri: bool = False) -> sqlite3.Connection:
    # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE … COMMIT).
    connection = sqlite3.connect(str(path), timeout=BUSY_MS / 1000, isolation_level=None, check_same_thread=False,
                                 uri=uri)
    connection.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
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
    # One transaction for the whole schema: each statement on its own would append the schema
    # page to the WAL again (a fresh database's first WAL would be far larger than its content).
    connection.execute("BEGIN IMMEDIATE")
    try:
        for table, (columns, constraint) in TABLES.items():
            connection.execute(f"CREATE TABLE IF NOT EXISTS {table} ({', '.join(filter(None, (*columns, constraint)))})")
            if [row[1] for row in connection.execute(f"PRAGMA table_info({table})")] != column_names(table):
                raise sqlite3.DatabaseError(f"table {table} is not agentls's")
        for statement in INDEXES:
            connection.execute(statement)
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise


def open_database(base: Path | None = None) -> Opened:
    folder = base or data_dir()
    path = folder / DB_NAME
    try:
        folder.mkdir(parents=True, exist_ok=True)
        connection = connect(path)
    except (OSError, sqlite3.Error) as error:
        return in_memory(f"the sessions folder {folder} cannot be used ({plain_words(error)})")
    try:
        prepare(connection)
        return Opened(connection, path)
    except sqlite3.DatabaseError as error:  # damaged, not a database, or not ours
        connection.close()
        if isinstance(error, sqlite3.OperationalError) and "malformed" not in str(error):
            # locked for too long, read-only, I/O error: the file may be fine, so it is left alone
            return in_memory(f"the session database {path} cannot be used ({plain_words(error)})")
        return _replace_damaged(path, error)


def _fixed_meanwhile(path: Path) -> Opened | None:
    """Another process may have just replaced the damaged file: then it is used, not moved again."""
    try:
        connection = connect(path)
    except sqlite3.Error:
        return None
    try:
        prepare(connection)
    except sqlite3.Error:
        connection.close()
        return None
    return Opened(connection, path)


def _replace_damaged(path: Path, error: sqlite3.Error) -> Opened:
    fixed = _fixed_meanwhile(path)
    if fixed is not None:
        return fixed
    aside = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}")
    try:
        for suffix in ("", "-wal", "-shm"):
            source = Path(str(path) + suffix)
            if source.exists():
                source.replace(Path(str(aside) + suffix))
        connection = connect(path)
        prepare(connection, check=False)
    except (OSError, sqlite3.Error) as again:
        return in_memory(f"the session database {path} is damaged and cannot be replaced ({plain_words(again)})")
    from .salvage import salvage

    copied = salvage(aside, connection)
    problem = (f"The session database was damaged ({plain_words(error)}). It was kept as {aside.name}; "
               f"{copied} readable records were copied into a fresh database.")
    return Opened(connection, path, [problem])


def in_memory(problem: str) -> Opened:
    connection = connect(":memory:")
    prepare(connection, check=False)
    return Opened(connection, None, [f"Your conversation will not be saved: {problem}."])


def plain_words(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__
