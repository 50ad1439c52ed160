"""Sessions that lose nothing: every message is appended to a JSONL log as it happens.

One folder per session under the platform data dir (per workspace): `log.jsonl`
(messages, compactions, usage; flushed per record) and `store/` (the full text
of every rewritten result). Compaction appends a record; it never rewrites the
log, so the original transcript survives. A torn last line (a crash mid-write)
is skipped on load.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import platformdirs

from ..context import DiskStore
from ..context.blocks import Message, blocks_of

INTERRUPTED = "[interrupted: the session ended before this tool call finished; nothing is known of its result]"


def data_dir() -> Path:
    override = os.environ.get("AGENTLS_DATA_DIR")
    return Path(override) if override else Path(platformdirs.user_data_dir("agentls", appauthor=False))


def workspace_folder(root: Path, base: Path | None = None) -> Path:
    resolved = str(Path(root).resolve())
    digest = hashlib.sha1(resolved.encode()).hexdigest()[:10]
    return (base or data_dir()) / "sessions" / f"{Path(resolved).name or 'root'}-{digest}"


@dataclass
class Restored:
    messages: list[Message]
    usage: list[tuple[str, dict[str, int]]]
    torn_lines: int


class SessionLog:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "log.jsonl"
        self.store = DiskStore(folder / "store")
        self._handle = open(self.path, "a", encoding="utf-8")

    @property
    def id(self) -> str:
        return self.folder.name

    @classmethod
    def open(cls, root: Path, *, new: bool = False, base: Path | None = None) -> "SessionLog":
        """The workspace's last session, or a new one."""
        home = workspace_folder(root, base)
        home.mkdir(parents=True, exist_ok=True)
        pointer = home / "current"
        if not new and pointer.exists():
            folder = home / pointer.read_text().strip()
            if folder.is_dir():
                return cls(folder)
        session_id = time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]
        log = cls(home / session_id)
        tmp = pointer.with_suffix(".tmp")
        tmp.write_text(session_id)
        tmp.replace(pointer)
        return log

    def close(self) -> None:
        self._handle.close()

    def _write(self, record: dict[str, Any]) -> None:
        self._handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._handle.flush()  # a kill -9 after this line loses nothing written

    def message(self, message: Message) -> None:
        self._write({"type": "message", "at": time.time(), "message": message})

    def compaction(self, messages: list[Message], summary: str, tokens_before: int, tokens_after: int) -> None:
        self._write({"type": "compaction", "at": time.time(), "summary": summary,
                     "tokensBefore": tokens_before, "tokensAfter": tokens_after, "messages": messages})

    def usage(self, model: str, usage: dict[str, int]) -> None:
        self._write({"type": "usage", "at": time.time(), "model": model, "usage": usage})

    def records(self) -> Iterator[dict[str, Any] | None]:
        with open(self.path, encoding="utf-8") as handle:
            for line in handle:
                try:
                    yield json.loads(line)
                except json.JSONDecodeError:
                    yield None  # a torn line from a crash mid-write

    def restore(self) -> Restored:
        """The working history (compactions applied) and the usage records."""
        messages: list[Message] = []
        usage: list[tuple[str, dict[str, int]]] = []
        torn = 0
        for record in self.records():
            if record is None:
                torn += 1
            elif record["type"] == "message":
                messages.append(record["message"])
            elif record["type"] == "compaction":
                messages = list(record["messages"])
            elif record["type"] == "usage":
                usage.append((record["model"], record["usage"]))
        return Restored(repaired(messages), usage, torn)


def repaired(messages: list[Message]) -> list[Message]:
    """A valid history from what was logged: open tool calls get an 'interrupted' result."""
    cleaned: list[Message] = []
    for message in messages:
        if cleaned and cleaned[-1]["role"] == message["role"]:
            if message["role"] == "user" and not any(b.get("type") == "tool_result" for b in blocks_of(message)):
                cleaned[-1] = {**cleaned[-1], "content": [*blocks_of(cleaned[-1]), *blocks_of(message)]}
            continue  # a duplicate of a role can only come from a torn turn
        cleaned.append(message)
    if cleaned and cleaned[-1]["role"] == "assistant":
        open_ids = [b["id"] for b in blocks_of(cleaned[-1]) if b.get("type") == "tool_use"]
        if open_ids:
            cleaned.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": i, "content": INTERRUPTED, "is_error": True}
                for i in open_ids
            ]})
    return cleaned
