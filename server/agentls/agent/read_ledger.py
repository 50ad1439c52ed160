"""Which files the model read in this conversation, as they were then: a file changed since (by the
user, a restore, another program) is named to the model with the next prompt, so it reads it again
instead of answering from what it read before (issue 33.3).

Saved with the session (a `state` record, key "reads", written when the ledger changed): a restart or a
resume still knows what the model read, and notices a file changed in between.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from ..context.placeholders import changed_files_note
from .workspace import Workspace

# Tools whose successful call leaves the model knowing the file's whole current text: read (what it
# saw), or written by the agent itself (what it wrote).
KNOWS_FILE = frozenset({"read_file", "write_file", "edit_file"})
CONTEXT_SCHEME = "context://"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


STATE_KEY = "reads"


class ReadLedger:
    def __init__(self) -> None:
        self._seen: dict[Path, str] = {}  # real path -> digest of its text when the model last saw it
        self._unsaved = False  # changed since unsaved_state() last handed it out

    def forget(self) -> None:
        self._seen.clear()
        self._unsaved = False

    def load(self, state: Any) -> None:
        """The ledger a session saved (its "reads" state); anything malformed is left out."""
        self.forget()
        if isinstance(state, dict):
            self._seen = {Path(path): digest for path, digest in state.items()
                          if isinstance(path, str) and Path(path).is_absolute() and isinstance(digest, str)}

    def unsaved_state(self) -> dict[str, str] | None:
        """The ledger to save when it changed since the last call (None: nothing new)."""
        if not self._unsaved:
            return None
        self._unsaved = False
        return {str(path): digest for path, digest in self._seen.items()}

    async def saw(self, workspace: Workspace, name: str, tool_input: Any) -> None:
        """After a successful call: the text the model now knows for the file it named."""
        raw = tool_input.get("path") if isinstance(tool_input, dict) else None
        if name not in KNOWS_FILE or not isinstance(raw, str) or raw.startswith(CONTEXT_SCHEME):
            return
        try:
            path = workspace.resolve(raw)
            digest = _digest(await workspace.read_text(path))
        except Exception:  # noqa: BLE001 - unreadable now: nothing to compare later
            return
        if self._seen.get(path) != digest:
            self._seen[path] = digest
            self._unsaved = True

    async def changed_note(self, workspace: Workspace) -> str | None:
        """The note naming the files changed (or gone) since the model saw them, None when none did.
        Each is named once: it is forgotten until the model reads it again."""
        changed: list[str] = []
        for path, digest in list(self._seen.items()):
            try:
                now = _digest(await workspace.read_text(path))
            except Exception:  # noqa: BLE001 - deleted, or no longer text: changed all the same
                now = ""
            if now != digest:
                changed.append(workspace.display(path))
                del self._seen[path]
                self._unsaved = True
        return changed_files_note(changed) if changed else None
