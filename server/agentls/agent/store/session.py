"""One conversation, as the agent sees it: append a message, a compaction, a usage;
restore the history. Each append is its own transaction, checked against the lease.

A write the disk refuses (full, read-only) raises StoreError and stays queued:
the next write commits the queue first, in order, so the stored conversation
never has a hole. A lease lost to another process (ours went silent for
LEASE_TTL) makes this process go on in a copy of the conversation, never in
the other's.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from ...context.blocks import Message
from .base import Database, StoreError
from .lease import Heartbeat, holds, new_owner, released, try_take
from .records import Restored, body_of, replay
from .refs import RefStore, copy_refs
from .views import read_view, write_view

TITLE_CHARS = 80


def new_session_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


def prompt_text(message: Message) -> str:
    """The user's own words in a message ('' for tool results): the last text block."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    texts = [b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text"]
    return texts[-1] if texts else ""


def title_of(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= TITLE_CHARS else line[:TITLE_CHARS - 1] + "…"


class Session:
    def __init__(self, db: Database, session_id: str, owner: str, last_seq: int, *, workspace: str,
                 owns_db: bool = True) -> None:
        self.db = db
        self.workspace = workspace
        self._id = session_id
        self.owner = owner
        self._last_seq = last_seq
        self._owns_db = owns_db
        self._pending: list[tuple[str, float, str]] = []
        self.problems: list[str] = list(db.problems)  # plain words, for the user, once
        self.store = RefStore(db, session_id)
        self._heartbeat = Heartbeat(db.path, session_id, owner) if db.path is not None else None

    @property
    def id(self) -> str:
        return self._id

    @property
    def saved(self) -> bool:
        return self.db.saved

    @property
    def position(self) -> int:
        """The seq of the last record written or queued: a checkpoint marks where its turn starts."""
        return self._last_seq + len(self._pending)

    def take_problems(self) -> list[str]:
        problems, self.problems = self.problems, []
        return problems

    # -- writes ------------------------------------------------------------------

    def message(self, message: Message) -> None:
        self._write("message", {"message": message})

    def compaction(self, messages: list[Message], summary: str, tokens_before: int, tokens_after: int) -> None:
        self._write("compaction", {"summary": summary, "tokens_before": tokens_before, "tokens_after": tokens_after,
                                   "messages": messages})

    def usage(self, model: str, usage: dict[str, int], usd: float | None = None,
              facts: dict[str, Any] | None = None) -> None:
        """facts: what the API said of this request beside its counts (agent/cache_report.py: the cache
        diagnosis, input_transformations, applied_edits), kept so /cost and /context survive a restart."""
        body: dict[str, Any] = {"model": model, "usage": usage, **(facts or {})}
        if usd is not None:
            body["usd"] = usd  # priced as it was paid: a later list prices it the same as /cost did
        self._write("usage", body)

    def transcript(self, body: dict[str, Any]) -> None:
        """What the user saw (agent/transcript.py): kept apart from the model's rewritten history."""
        self._write("transcript", body)

    def state(self, values: dict[str, Any]) -> None:
        """The agent's state beside the history (task list, instruction folders): newest value per key wins."""
        self._write("state", values)

    def _write(self, kind: str, body: dict[str, Any]) -> None:
        self._pending.append((kind, time.time(), json.dumps(body, ensure_ascii=False)))
        self.flush()

    def flush(self) -> None:
        """Commit every queued record, or none (StoreError: they stay queued)."""
        if not self._pending:
            return
        now = time.time()
        with self.db.transaction() as connection:
            if not holds(connection, self._id, self.owner):
                self._fork(connection, now)
            # a session is listed from its first record on (an untouched second window leaves nothing)
            connection.execute("INSERT OR IGNORE INTO sessions (id, workspace, created, updated) VALUES (?, ?, ?, ?)",
                               (self._id, self.workspace, now, now))
            seq = self._next_seq(connection)
            title, turns = "", 0
            for offset, (kind, at, body) in enumerate(self._pending):
                connection.execute("INSERT INTO records (session, seq, kind, at, body) VALUES (?, ?, ?, ?, ?)",
                                   (self._id, seq + offset, kind, at, body))
                if kind == "message":
                    message = json.loads(body)["message"]
                    text = prompt_text(message) if message.get("role") == "user" else ""
                    turns += bool(text)
                    title = title or title_of(text)
            connection.execute(
                "UPDATE sessions SET updated = ?, turns = turns + ?, "
                "title = CASE WHEN title = '' THEN ? ELSE title END WHERE id = ?", (now, turns, title, self._id))
            connection.execute("UPDATE leases SET heartbeat = ? WHERE session = ?", (now, self._id))
            last = seq + len(self._pending) - 1
        self._last_seq = last
        self._pending.clear()

    def _next_seq(self, connection) -> int:
        row = connection.execute("SELECT MAX(seq) FROM records WHERE session = ?", (self._id,)).fetchone()
        return (row[0] if isinstance(row[0], int) else 0) + 1

    def _fork(self, connection, now: float) -> None:
        """Our lease was taken: go on in a copy of what we had, under a new id."""
        old, new = self._id, new_session_id()
        connection.execute("INSERT INTO sessions (id, workspace, title, created, updated, turns) "
                           "SELECT ?, workspace, title, created, ?, turns FROM sessions WHERE id = ?", (new, now, old))
        connection.execute("INSERT INTO records (session, seq, kind, at, body) "
                           "SELECT ?, seq, kind, at, body FROM records WHERE session = ? AND seq <= ?",
                           (new, old, self._last_seq))
        copy_refs(connection, old, new)
        try_take(connection, new, self.owner, now)
        self._id = new
        self.store.move(new)
        if self._heartbeat is not None:
            self._heartbeat.move(new)
        self.problems.append("Another agentls window took over this conversation while this one was silent; "
                             f"this window goes on in a copy of it (session {new}).")

    # -- reads -------------------------------------------------------------------

    def restore(self, use_view: bool = False) -> Restored:
        """The working history (compactions applied, made valid) and the usage records.

        use_view: when the session has a usable working view (views.py), only the
        records after it are read (`Restored.view`, and the later messages as
        recorded: the caller continues the view with them, or asks again without
        the view when they do not fit); the usage and state records are read
        wherever they are (the meter's totals; the newest task list and
        instruction folders, however long ago they changed).
        Records that cannot be read are moved to the `set_aside` table (kept, not
        deleted) and reported once."""
        view = read_view(self.db, self._id) if use_view else None
        try:
            if view is not None:
                rows = self.db.read("SELECT seq, kind, body FROM records WHERE session = ? AND (seq > ? OR kind IN "
                                    "('usage', 'state')) ORDER BY seq", (self._id, view.seq))
            else:
                rows = self.db.read("SELECT seq, kind, body FROM records WHERE session = ? ORDER BY seq", (self._id,))
        except StoreError as error:
            self.problems.append(f"This conversation could not be read ({error}); it starts empty.")
            return Restored()
        restored = replay([(kind, body) for _, kind, body in rows], repair=view is None)
        restored.view = view
        if restored.skipped:
            self._set_aside(rows)
            self.problems.append(
                f"{restored.skipped} damaged record{'s' if restored.skipped > 1 else ''} of this conversation could "
                "not be read and {} left out (kept aside in the database); everything readable was restored."
                .format("was" if restored.skipped == 1 else "were"))
        return restored

    def transcript_rows(self) -> list[tuple[str, dict[str, Any]]]:
        """What the transcript of record is read from (agent/transcript.entries_of) when the history came
        from the working view: every `transcript` record, the messages and compactions of the part older
        than them, and the messages that carry images (a prompt's images are read from them)."""
        try:
            rows = self.db.read(
                "SELECT kind, body FROM records WHERE session = ? AND (kind = 'transcript' OR (kind IN "
                "('message', 'compaction') AND (body LIKE '%\"image\"%' OR seq < COALESCE((SELECT MIN(seq) FROM "
                "records WHERE session = ? AND kind = 'transcript'), seq + 1)))) ORDER BY seq", (self._id, self._id))
        except StoreError as error:
            self.problems.append(f"The transcript of this conversation could not be read ({error}).")
            return []
        return [(kind, body) for kind, raw in rows if (body := body_of(raw)) is not None]

    def save_view(self, rows: dict[int, str], length: int, state: str, *, full: bool) -> None:
        """Store the working view after every record written so far (views.py): the message rows that
        changed, the engine's state. Not while another process holds the session."""
        self.flush()
        with self.db.transaction() as connection:
            if holds(connection, self._id, self.owner):
                write_view(connection, self._id, self._last_seq, rows, length, state, full=full)

    def _set_aside(self, rows: list[tuple]) -> None:
        bad = [seq for seq, kind, body in rows if replay([(kind, body)]).skipped]
        try:
            with self.db.transaction() as connection:
                for seq in bad:
                    connection.execute("INSERT INTO set_aside SELECT session, seq, kind, at, body FROM records "
                                       "WHERE session = ? AND seq = ?", (self._id, seq))
                    connection.execute("DELETE FROM records WHERE session = ? AND seq = ?", (self._id, seq))
        except StoreError:
            pass  # left in place: read around again next time

    # -- end ---------------------------------------------------------------------

    def close(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.stop()
        try:
            self.flush()
        except StoreError:
            pass  # the disk still refuses: what is queued is lost with the process, as announced
        try:
            with self.db.transaction() as connection:
                connection.execute("DELETE FROM leases WHERE session = ? AND owner = ?", (self._id, self.owner))
        except StoreError:
            pass  # the lease goes stale with this process
        released(self.owner)
        if self._owns_db:
            self.db.close()


def claim(session_id: str, connection, now: float, owner: str | None = None) -> tuple[str, int] | None:
    """Inside a transaction: take the session's lease; (owner, last seq) or None if another process holds it."""
    owner = owner or new_owner()
    if not try_take(connection, session_id, owner, now):
        return None
    row = connection.execute("SELECT MAX(seq) FROM records WHERE session = ?", (session_id,)).fetchone()
    return owner, row[0] if isinstance(row[0], int) else 0
