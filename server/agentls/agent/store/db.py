"""The one SQLite database of all sessions: opening it, whatever is on disk.

Its tables and connection settings are schema.py's. Opening never fails: a
file that is not a database, or whose schema is not ours, or that SQLite
finds damaged, is renamed aside (kept, never deleted), what rows can still be
read from it are copied into a fresh database (salvage.py), and the problem
is returned in plain words. When no database can be written at all
(read-only or full disk), an in-memory one stands in.
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from .salvage import salvage
from .schema import BUSY_MS, connect, prepare

DB_NAME = "sessions.db"
# Opening a session (start, new chat, resume) waits this long in all for another process's write lock,
# retrying with backoff (store/__init__.py); then it answers "busy" rather than going on in memory.
# AGENTLS_STORE_BUSY_SECONDS overrides (README, "Limits").
BUSY_WAIT_SECONDS = 20.0


def busy_wait_seconds() -> float:
    try:
        value = float(os.environ.get("AGENTLS_STORE_BUSY_SECONDS", BUSY_WAIT_SECONDS))
    except ValueError:
        return BUSY_WAIT_SECONDS
    return value if 0 <= value <= 3600 else BUSY_WAIT_SECONDS


def is_busy(error: BaseException) -> bool:
    """SQLite's "database is locked" / "busy": another connection holds the lock; the file is fine."""
    return isinstance(error, sqlite3.OperationalError) and any(
        word in str(error).lower() for word in ("locked", "busy"))


def data_dir() -> Path:
    override = os.environ.get("AGENTLS_DATA_DIR")
    return Path(override) if override else Path(platformdirs.user_data_dir("agentls", appauthor=False))


@dataclass
class Opened:
    connection: sqlite3.Connection
    path: Path | None  # None: in memory, nothing is saved
    problems: list[str] = field(default_factory=list)
    busy: bool = False  # in memory only because another process held the lock: worth trying again


def open_database(base: Path | None = None, busy_ms: int = BUSY_MS) -> Opened:
    folder = base or data_dir()
    path = folder / DB_NAME
    try:
        folder.mkdir(parents=True, exist_ok=True)
        connection = connect(path, busy_ms=busy_ms)
    except (OSError, sqlite3.Error) as error:
        return in_memory(f"the sessions folder {folder} cannot be used ({plain_words(error)})")
    try:
        prepare(connection)
        return Opened(connection, path)
    except sqlite3.DatabaseError as error:  # damaged, not a database, or not ours
        connection.close()
        if isinstance(error, sqlite3.OperationalError) and "malformed" not in str(error):
            # locked for too long, read-only, I/O error: the file may be fine, so it is left alone
            opened = in_memory(f"the session database {path} cannot be used ({plain_words(error)})")
            opened.busy = is_busy(error)
            return opened
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
