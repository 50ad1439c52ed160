"""The database handle shared by a process's sessions: one connection, one lock, explicit transactions."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from pathlib import Path
from collections.abc import Iterator

from .db import Opened, plain_words, open_database


class StoreError(Exception):
    """A store operation failed; the message is plain words, safe to show."""


class Database:
    def __init__(self, opened: Opened) -> None:
        self.connection = opened.connection
        self.path: Path | None = opened.path
        self.problems = list(opened.problems)
        self.lock = threading.RLock()

    @classmethod
    def open(cls, base: Path | None = None) -> Database:
        return cls(open_database(base))

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
                raise StoreError(plain_words(error)) from error
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self.connection.execute("ROLLBACK")
                raise

    def read(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self.lock:
            try:
                return self.connection.execute(sql, params).fetchall()
            except sqlite3.Error as error:
                raise StoreError(plain_words(error)) from error

    def close(self) -> None:
        with self.lock, contextlib.suppress(sqlite3.Error):
            self.connection.close()
