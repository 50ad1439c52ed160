"""Full text of every tool result and rewritten input, re-readable by name.

A placeholder in the history names a ref (``context://<tool_use_id>`` or
``context://<tool_use_id>/input``); ``read_file`` of that ref returns the text
kept here, so no rewrite loses anything.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Protocol

REF_SCHEME = "context://"
_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]")


def result_ref(tool_use_id: str) -> str:
    return f"{REF_SCHEME}{tool_use_id}"


def input_ref(tool_use_id: str) -> str:
    return f"{REF_SCHEME}{tool_use_id}/input"


def is_ref(name: str) -> bool:
    return name.startswith(REF_SCHEME)


class ResultStore(Protocol):
    def put(self, ref: str, text: str) -> None: ...

    def get(self, ref: str) -> str | None: ...


class MemoryStore:
    """In-memory store for tests, replay and benchmarks."""

    def __init__(self) -> None:
        self._texts: dict[str, str] = {}

    def put(self, ref: str, text: str) -> None:
        self._texts.setdefault(ref, text)

    def get(self, ref: str) -> str | None:
        return self._texts.get(ref)

    def __len__(self) -> int:
        return len(self._texts)


class DiskStore:
    """One file per ref under a session folder; written once, never rewritten."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)

    def _path(self, ref: str) -> Path:
        name = ref[len(REF_SCHEME):] if is_ref(ref) else ref
        return self.folder / (_SAFE_NAME.sub("_", name) + ".txt")

    def put(self, ref: str, text: str) -> None:
        path = self._path(ref)
        if not path.exists():
            tmp = path.with_suffix(".tmp")
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(path)

    def get(self, ref: str) -> str | None:
        path = self._path(ref)
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None


def text_ref(text: str) -> str:
    """The ref of a text that has no tool_use id (assistant prose, an oversized message): named by its content."""
    return f"{REF_SCHEME}text-{hashlib.sha1(text.encode('utf-8')).hexdigest()[:16]}"
