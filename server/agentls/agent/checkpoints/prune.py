"""Keeping the checkpoint store (`checkpoints/blobs/`) within the store's size limit.

The same limit as the session database's stored originals (AGENTLS_STORE_LIMIT_MB, store/prune.py)
bounds the file contents checkpoints keep. Over it, contents no checkpoint names go first (the
snapshots of shell commands store every file; only the changed ones end up named), then the
checkpoints of the least recently updated sessions, whole sessions at a time, and the contents only
they named. A session a window holds (a live lease) keeps its checkpoints. `agentls sessions vacuum
--limit N` prunes to N; opening a session prunes only when the store is over the limit.

Contents are shared by hash, and a running window remembers which it has stored: a prune touches
the PRUNED marker, and a snapshot that sees the marker changed forgets what it knew and stores again
(blobs.py `fresh`). A checkpoint whose earlier content was pruned while its turn ran says so.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..store.lease import is_live, lease_of
from .blobs import PRUNED
from .model import is_content

if TYPE_CHECKING:
    from ..store.base import Database


@dataclass
class CheckpointsPruned:
    sessions: int = 0  # sessions whose checkpoints were removed
    freed: int = 0  # bytes of stored contents deleted
    stored: int = 0  # bytes left


def blobs_folder(db: Database) -> Path | None:
    return db.path.parent / "checkpoints" / "blobs" if db.path is not None else None


def _stored(folder: Path) -> dict[str, tuple[Path, int]]:
    """Every stored content: hash → (file, bytes on disk)."""
    found = {}
    for sub in folder.glob("??"):
        for path in sub.iterdir():
            if not path.name.startswith("."):  # .name.pid.tmp: a blob being written
                try:
                    found[sub.name + path.name] = (path, path.stat().st_size)
                except OSError:
                    continue
    return found


def _names(body: dict) -> Iterable[str]:
    for change in body.get("files", []):
        for state in (change.get("before"), change.get("after")):
            if isinstance(state, str) and is_content(state):
                yield state


def prune_checkpoints(db: Database, limit: int) -> CheckpointsPruned:
    """Delete stored contents (and, if need be, old sessions' checkpoints) until the rest fit in `limit`."""
    folder = blobs_folder(db)
    result = CheckpointsPruned()
    if folder is None or not folder.is_dir():
        return result
    stored = _stored(folder)
    result.stored = sum(size for _, size in stored.values())
    if result.stored <= limit:
        return result
    named: dict[str, set[str]] = {}
    for session_id, raw in db.read("SELECT session, body FROM checkpoints"):
        try:
            named.setdefault(session_id, set()).update(_names(json.loads(raw)))
        except (TypeError, ValueError, AttributeError):
            continue
    doomed = set(stored) - set().union(*named.values())
    with db.transaction() as connection:
        now = time.time()
        oldest_first = connection.execute("SELECT id FROM sessions ORDER BY updated ASC, created ASC").fetchall()
        for (session_id,) in oldest_first:
            if result.stored - sum(stored[name][1] for name in doomed) <= limit:
                break
            if session_id not in named or is_live(lease_of(connection, session_id), now):
                continue
            connection.execute("DELETE FROM checkpoints WHERE session = ?", (session_id,))
            result.sessions += 1
            others = set().union(*(names for other, names in named.items() if other != session_id))
            doomed |= {name for name in named.pop(session_id) if name in stored and name not in others}
    for name in doomed:
        path, size = stored[name]
        path.unlink(missing_ok=True)
        result.freed += size
        result.stored -= size
    if doomed:
        marker = folder / PRUNED
        marker.touch()
        os.utime(marker)  # a new mtime even within the same clock tick as the last prune's touch
    return result
