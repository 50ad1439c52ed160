"""The `context://` store of a session, in the same database: a ref reads back from
the same transactional store as the message that names it.

A text is stored once per session: `ref_index` keeps each ref's sha256, and a
ref whose text an earlier ref already holds only gets an index row (reading
a stored ref back, which the L0 layer would store again under the new call's
ref, adds nothing). Every text is cut to RESULT_CAP_BYTES (context/caps.py) before it is stored.
"""

from __future__ import annotations

import hashlib
import sqlite3

from ..result_cap import capped, stored_cap
from .base import Database, StoreError


def digest_of(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def write_ref(connection: sqlite3.Connection, session_id: str, ref: str, text: str, digest: str) -> None:
    """Inside a transaction: store `text` as `ref` (first write wins), once per session."""
    if connection.execute("SELECT 1 FROM refs WHERE session = ? AND ref = ? UNION ALL "
                          "SELECT 1 FROM ref_index WHERE session = ? AND ref = ?",
                          (session_id, ref, session_id, ref)).fetchone():
        return
    holder = connection.execute(
        "SELECT 1 FROM ref_index i JOIN refs r ON r.session = i.session AND r.ref = i.ref "
        "WHERE i.session = ? AND i.digest = ? LIMIT 1", (session_id, digest)).fetchone()
    if holder is None:
        connection.execute("INSERT INTO refs (session, ref, text) VALUES (?, ?, ?)", (session_id, ref, text))
    size = 0 if holder else len(text.encode("utf-8", "surrogatepass"))
    connection.execute("INSERT INTO ref_index (session, ref, digest, bytes) VALUES (?, ?, ?, ?)",
                       (session_id, ref, digest, size))


def read_ref(db: Database, session_id: str, ref: str) -> str | None:
    """The text of a ref: its own row, or the row of the ref that holds the same text (StoreError)."""
    rows = db.read("SELECT text FROM refs WHERE session = ? AND ref = ?", (session_id, ref))
    if not rows:
        rows = db.read("SELECT r.text FROM ref_index a JOIN ref_index b ON b.session = a.session "
                       "AND b.digest = a.digest JOIN refs r ON r.session = b.session AND r.ref = b.ref "
                       "WHERE a.session = ? AND a.ref = ? LIMIT 1", (session_id, ref))
    return rows[0][0] if rows and isinstance(rows[0][0], str) else None


def copy_refs(connection: sqlite3.Connection, source: str, target: str) -> None:
    """Inside a transaction: every ref of session `source` (and its index) as a ref of `target`."""
    connection.execute("INSERT OR IGNORE INTO refs (session, ref, text) "
                       "SELECT ?, ref, text FROM refs WHERE session = ?", (target, source))
    connection.execute("INSERT OR IGNORE INTO ref_index (session, ref, digest, bytes) "
                       "SELECT ?, ref, digest, bytes FROM ref_index WHERE session = ?", (target, source))


class RefStore:
    """ResultStore over the refs table; a write the disk refuses is kept in memory (and
    retried on the next put), so a ref always reads back in this process."""

    def __init__(self, db: Database, session_id: str) -> None:
        self.db, self.session_id = db, session_id
        self._unsaved: dict[str, tuple[str, str]] = {}  # ref → (text, digest)

    def put(self, ref: str, text: str) -> None:
        if ref not in self._unsaved:
            text = capped(text, stored_cap(ref))
            self._unsaved[ref] = (text, digest_of(text))
        try:
            with self.db.transaction() as connection:
                for r, (t, d) in self._unsaved.items():
                    write_ref(connection, self.session_id, r, t, d)
            self._unsaved.clear()
        except StoreError:
            pass  # kept in memory; the message that names it reports the failed save

    def get(self, ref: str) -> str | None:
        if ref in self._unsaved:
            return self._unsaved[ref][0]
        try:
            text = read_ref(self.db, self.session_id, ref)
        except StoreError:
            return None
        if text is not None:
            self._index(ref, text)
        return text

    def _index(self, ref: str, text: str) -> None:
        """A ref stored by an older agentls has no index row: give it one, so that reading it back
        (the usual way to come across it) does not store its text a second time."""
        try:
            if self.db.read("SELECT 1 FROM ref_index WHERE session = ? AND ref = ?", (self.session_id, ref)):
                return
            with self.db.transaction() as connection:
                connection.execute("INSERT OR IGNORE INTO ref_index (session, ref, digest, bytes) VALUES (?, ?, ?, ?)",
                                   (self.session_id, ref, digest_of(text), len(text.encode("utf-8", "surrogatepass"))))
        except StoreError:
            pass  # indexed another time

    def move(self, session_id: str) -> None:
        self.session_id = session_id
