"""The database handle shared by a process's sessions: one connection, one lock, explicit transactions."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from pathlib import Path
from collections.abc import Iterator

from .db import Opened, is_busy, plain_words, open_database
from .schema import BUSY_MS


class StoreError(Exception):
    """A store operation failed; the message is plain words, safe to show."""


class StoreBusy(StoreError):
    """Another process held the database's write lock for longer than we wait: try again later."""


class SessionInUse(StoreError):
    """Another live process holds the session's lease (another window has it open)."""


class Database:
    def __init__(self, opened: Opened) -> None:
        self.connection = opened.connection
        self.path: Path | None = opened.path
        self.problems = list(opened.problems)
        self.lock = threading.RLock()
        self.busy = opened.busy  # in memory only because another process held the lock

    @classmethod
    def open(cls, base: Path | None = None, busy_ms: int = BUSY_MS) -> Database:
        return cls(open_database(base, busy_ms))

    @property
    def saved(self) -> bool:
        return self.path is not None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE … COMMIT: all of it or none of it; errors become StoreError."""
        with self.lock:
            try:
                self.connection.execute("BEGIN IMMEDIATE")
                yield self.connection
                self.connection.execute("COMMIT")
            except (sqlite3.Error, OSError) as error:
                with contextlib.suppress(sqlite3.Error):
                    self.connection.execute("ROLLBACK")
                raise (StoreBusy if is_busy(error) else StoreError)(plain_words(error)) from error
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self.connection.execute("ROLLBACK")
                raise

    def set_busy_timeout(self, busy_ms: int) -> None:
        with self.lock, contextlib.suppress(sqlite3.Error):
            self.connection.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")

    def read(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self.lock:
            try:
                return self.connection.execute(sql, params).fetchall()
            except sqlite3.Error as error:
                raise StoreError(plain_words(error)) from error

    def close(self) -> None:
        with self.lock, contextlib.suppress(sqlite3.Error):
            self.connection.close()
