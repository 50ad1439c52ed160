"""Keeping sessions.db within a size: the stored originals of old sessions go first.

The `context://` originals (the refs table) are what makes the database big;
the conversations themselves are small. When the originals together pass
STORE_LIMIT_BYTES (README, "Limits"; AGENTLS_STORE_LIMIT_MB overrides), those
of the least recently updated sessions are deleted, whole sessions at a time,
until they fit again. A session a window holds (a live lease) is never
touched, nor are its messages: a pruned session still resumes, only its
`context://` refs no longer read back. Pruning runs when a session is opened
and in `agentls sessions vacuum`, which also gives the freed pages back to the
file system (SQLite reuses them otherwise, so the file stops growing anyway).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from dataclasses import dataclass

from typing import TYPE_CHECKING

from .base import Database, StoreBusy, StoreError
from .db import is_busy, plain_words
from .lease import is_live, lease_of

if TYPE_CHECKING:
    from ..checkpoints.prune import CheckpointsPruned

log = logging.getLogger(__name__)

STORE_LIMIT_BYTES = 1_000_000_000
INDEXED = "ref-index"  # a `migrated` row: the refs of older versions have index rows (sizes) since then


def store_limit_bytes() -> int:
    try:
        megabytes = float(os.environ.get("AGENTLS_STORE_LIMIT_MB", STORE_LIMIT_BYTES / 1e6))
    except ValueError:
        return STORE_LIMIT_BYTES
    return int(megabytes * 1e6) if 0 < megabytes <= 1e9 else STORE_LIMIT_BYTES


@dataclass
class Pruned:
    sessions: int = 0  # sessions whose originals were removed
    freed: int = 0  # bytes of text
    stored: int = 0  # bytes of originals left
    checkpoints: CheckpointsPruned | None = None  # the checkpoint store (vacuum)


def index_old_refs(db: Database, *, again: bool = False) -> None:
    """Give every ref without one an index row with its size (refs written by agentls before the index).

    Once per database (a `migrated` row says it was done), and only when there are refs at all: a new
    database is not written to when it is opened (each write costs WAL frames; a full disk starts sooner)."""
    if not again and db.read("SELECT 1 FROM migrated WHERE source = ? UNION ALL SELECT 1 WHERE NOT EXISTS "
                             "(SELECT 1 FROM refs)", (INDEXED,)):
        return
    with db.transaction() as connection:
        connection.execute("INSERT OR IGNORE INTO ref_index (session, ref, digest, bytes) "
                           "SELECT session, ref, NULL, length(CAST(text AS BLOB)) FROM refs r WHERE NOT EXISTS "
                           "(SELECT 1 FROM ref_index i WHERE i.session = r.session AND i.ref = r.ref)")
        connection.execute("INSERT OR REPLACE INTO migrated (source, at) VALUES (?, ?)", (INDEXED, time.time()))


def stored_bytes(db: Database) -> int:
    (total,) = db.read("SELECT COALESCE(SUM(bytes), 0) FROM ref_index")[0]
    return int(total)


def prune(db: Database, limit: int, *, reindex: bool = False) -> Pruned:
    """Delete the originals of the oldest sessions no window holds until the rest fit in `limit` bytes."""
    from ..checkpoints.prune import prune_checkpoints  # (the checkpoints import the store's leases)

    index_old_refs(db, again=reindex)
    if not reindex:
        prune_checkpoints(db, limit)  # at open: acts only when the checkpoint store is over the limit
    result = Pruned(stored=stored_bytes(db))
    if result.stored <= limit:
        return result
    with db.transaction() as connection:
        now = time.time()
        candidates = connection.execute(
            "SELECT s.id, SUM(i.bytes) FROM sessions s JOIN ref_index i ON i.session = s.id "
            "GROUP BY s.id ORDER BY s.updated ASC, s.created ASC").fetchall()
        for session_id, size in candidates:
            if result.stored <= limit:
                break
            if is_live(lease_of(connection, session_id), now):
                continue  # open in a window: its originals may be read at any moment
            connection.execute("DELETE FROM refs WHERE session = ?", (session_id,))
            connection.execute("DELETE FROM ref_index WHERE session = ?", (session_id,))
            result.sessions += 1
            result.freed += int(size or 0)
            result.stored -= int(size or 0)
    log.info("pruned the stored originals of %d old sessions (%d bytes)", result.sessions, result.freed)
    return result


def file_bytes(db: Database) -> int:
    """sessions.db and its WAL, as the file system counts them."""
    if db.path is None:
        return 0
    return sum(os.path.getsize(f"{db.path}{suffix}") for suffix in ("", "-wal")
               if os.path.exists(f"{db.path}{suffix}"))


def vacuum(db: Database, limit: int) -> tuple[Pruned, int, int]:
    """Prune to `limit`, then give the free pages back: (what was pruned, bytes before, bytes after).
    StoreError (StoreBusy while another process writes)."""
    before = file_bytes(db)
    pruned = prune(db, limit, reindex=True)
    from ..checkpoints.prune import prune_checkpoints

    pruned.checkpoints = prune_checkpoints(db, limit)
    with db.lock:
        try:
            db.connection.execute("VACUUM")
            db.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error as error:
            raise (StoreBusy if is_busy(error) else StoreError)(plain_words(error)) from error
    return pruned, before, file_bytes(db)
