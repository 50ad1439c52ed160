"""Full text of every tool result and rewritten input, re-readable by name.

A placeholder in the history names a ref (``context://<tool_use_id>`` or
``context://<tool_use_id>/input``); ``read_file`` of that ref returns the text
kept here, so no rewrite loses anything.
"""

from __future__ import annotations

import hashlib
from typing import Protocol

REF_SCHEME = "context://"


def result_ref(tool_use_id: str) -> str:
    return f"{REF_SCHEME}{tool_use_id}"


def input_ref(tool_use_id: str) -> str:
    return f"{REF_SCHEME}{tool_use_id}/input"


def words_ref(tool_use_id: str) -> str:
    """Where a folded turn keeps its own words (text and thinking): its last call's ref + /words."""
    return f"{REF_SCHEME}{tool_use_id}/words"


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


def text_ref(text: str) -> str:
    """The ref of a text that has no tool_use id (assistant prose, an oversized message): named by its content."""
    return f"{REF_SCHEME}text-{hashlib.sha1(text.encode('utf-8')).hexdigest()[:16]}"
