"""The `context://` store of a session, in the same database: a ref reads back from
the same transactional store as the message that names it."""

from __future__ import annotations

from .base import Database, StoreError


class RefStore:
    """ResultStore over the refs table; a write the disk refuses is kept in memory (and
    retried on the next put), so a ref always reads back in this process."""

    def __init__(self, db: Database, session_id: str) -> None:
        self.db, self.session_id = db, session_id
        self._unsaved: dict[str, str] = {}

    def put(self, ref: str, text: str) -> None:
        self._unsaved.setdefault(ref, text)
        try:
            with self.db.transaction() as connection:
                connection.executemany("INSERT OR IGNORE INTO refs (session, ref, text) VALUES (?, ?, ?)",
                                       [(self.session_id, r, t) for r, t in self._unsaved.items()])
            self._unsaved.clear()
        except StoreError:
            pass  # kept in memory; the message that names it reports the failed save

    def get(self, ref: str) -> str | None:
        if ref in self._unsaved:
            return self._unsaved[ref]
        try:
            rows = self.db.read("SELECT text FROM refs WHERE session = ? AND ref = ?", (self.session_id, ref))
        except StoreError:
            return None
        return rows[0][0] if rows and isinstance(rows[0][0], str) else None

    def move(self, session_id: str) -> None:
        self.session_id = session_id
