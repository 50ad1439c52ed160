"""Sessions as JSONL, to read or move them: export, import, and the reader the
migration of the old per-session logs uses too.

One JSON object per line: `{"type": "session", id, workspace, title, created,
updated}` first, then one line per record `{"type": "message"|"compaction"|
"usage"|"transcript", "at": …, …body}` (the old log's format), then `{"type": "ref", ref, text}`
per context:// ref. A line that does not read (torn, wrong types) is skipped
and counted; it never stops the import.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Iterator

from ..result_cap import capped, stored_cap
from ..visible import excerpt
from .base import Database, StoreError
from .records import KINDS, body_of, clean_message, clean_usage, replay
from .refs import digest_of, read_ref, write_ref
from .session import new_session_id, prompt_text, title_of
from .sessions import SessionStore, workspace_key


@dataclass
class Parsed:
    records: list[tuple[str, float, str]] = field(default_factory=list)  # kind, at, body
    refs: dict[str, str] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    skipped: int = 0


def _readable(kind: str, body: dict[str, Any]) -> bool:
    if kind == "message":
        return clean_message(body.get("message")) is not None
    if kind == "usage":
        return clean_usage(body) is not None
    if kind == "transcript":
        return isinstance(body.get("entry"), str)
    if kind == "state":
        return True
    return isinstance(body.get("messages"), list)


def parse(data: bytes) -> Parsed:
    parsed = Parsed()
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        record = body_of(line)
        kind = record.get("type") if record is not None else None
        if record is None or not isinstance(kind, str):
            parsed.skipped += 1
        elif kind == "session" and not parsed.meta:
            parsed.meta = record
        elif kind == "ref" and isinstance(record.get("ref"), str) and isinstance(record.get("text"), str):
            parsed.refs[record["ref"]] = record["text"]
        elif kind in KINDS:
            at = record.get("at")
            body = {k: v for k, v in record.items() if k not in ("type", "at")}
            if _readable(kind, body):
                at = float(at) if isinstance(at, (int, float)) and not isinstance(at, bool) else 0.0
                parsed.records.append((kind, at, json.dumps(body, ensure_ascii=False)))
            else:
                parsed.skipped += 1
        else:
            parsed.skipped += 1
    return parsed


def add_session(db: Database, root: Path | str, parsed: Parsed, *, session_id: str | None = None,
                updated: float | None = None, source: str | None = None) -> str:
    """One transaction: the parsed records as a new session of the workspace (its id, '' when
    there were none), and `source` marked as migrated."""
    key = workspace_key(Path(root)) if not isinstance(root, str) else root
    stamps = [at for _, at, _ in parsed.records if at]
    now = time.time()
    created = min(stamps) if stamps else now
    messages = [json.loads(body)["message"] for kind, _, body in parsed.records if kind == "message"]
    prompts = [prompt_text(m) for m in messages if m.get("role") == "user"]
    prompts = [p for p in prompts if p]
    title = parsed.meta.get("title") if isinstance(parsed.meta.get("title"), str) else ""
    with db.transaction() as connection:
        if source is not None:
            connection.execute("INSERT OR IGNORE INTO migrated (source, at) VALUES (?, ?)", (source, now))
        if not parsed.records:
            return ""
        if session_id is None or connection.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone():
            session_id = new_session_id()
        SessionStore.create_row(connection, key, created, session_id, title or title_of(prompts[0] if prompts else ""))
        connection.execute("UPDATE sessions SET updated = ?, turns = ? WHERE id = ?",
                           (updated or (max(stamps) if stamps else now), len(prompts), session_id))
        connection.executemany("INSERT INTO records (session, seq, kind, at, body) VALUES (?, ?, ?, ?, ?)",
                               [(session_id, seq, kind, at, body)
                                for seq, (kind, at, body) in enumerate(parsed.records, 1)])
        for ref, text in parsed.refs.items():
            text = capped(text, stored_cap(ref))
            write_ref(connection, session_id, ref, text, digest_of(text))
    return session_id


def import_jsonl(db: Database, root: Path, data: bytes) -> tuple[str, int]:
    """A new session of the workspace from an export; (its id, lines skipped)."""
    parsed = parse(data)
    if not parsed.records:
        raise StoreError("nothing in that file reads as a session record")
    return add_session(db, root, parsed), parsed.skipped


def export_jsonl(db: Database, session_id: str) -> Iterator[str]:
    rows = db.read("SELECT id, workspace, title, created, updated FROM sessions WHERE id = ?", (session_id,))
    if not rows:
        raise StoreError(f"no session {excerpt(session_id)}")
    sid, workspace, title, created, updated = rows[0]
    yield _line({"type": "session", "id": sid, "workspace": workspace, "title": title, "created": created,
                 "updated": updated})
    for kind, at, body in db.read("SELECT kind, at, body FROM records WHERE session = ? ORDER BY seq", (sid,)):
        value = body_of(body)
        if value is not None and not replay([(kind, body)]).skipped:  # a damaged row is not exported
            yield _line({"type": kind, "at": at, **value})
    names = db.read("SELECT ref FROM refs WHERE session = ? UNION SELECT ref FROM ref_index WHERE session = ? "
                    "ORDER BY ref", (sid, sid))
    for (ref,) in names:
        text = read_ref(db, sid, ref)  # a ref stored once for several names is exported under each
        if text is not None:
            yield _line({"type": "ref", "ref": ref, "text": text})


def _line(value: dict[str, Any]) -> str:
    # ASCII only: an export printed to a terminal shows no control, bidi or C1 character (JSON escapes are lossless).
    return json.dumps(value) + "\n"
