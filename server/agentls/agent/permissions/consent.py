"""The user's answers about workspace rules files: a file's allow rules apply only once the user accepted them.

A workspace's `.agents/settings.json` comes with the code (a cloned repository,
or a file the agent itself wrote): its deny and ask rules only tighten and apply
at once, but its allow rules loosen what the user set, so they apply only after
the user has seen them and said yes — per content: any change is asked again.
The answers are kept with the user's data (the sessions folder, store/db.py
`data_dir`), never in the workspace, where the agent or the repository could
write a "yes" of its own.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

FILE = "accepted-rules.json"


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Consents:
    """{workspace rules file → (sha256 of its content, accepted)}, in a JSON file of the user's data folder."""

    def __init__(self, folder: Path | None = None) -> None:
        self._folder = folder  # None: the user's data folder (AGENTLS_DATA_DIR or the platform's)

    def _path(self) -> Path:
        if self._folder is not None:
            return self._folder / FILE
        from ..store.db import data_dir  # lazily: the store's module is not needed to start the server

        return data_dir() / FILE

    def _read(self) -> dict[str, dict[str, object]]:
        try:
            data = json.loads(self._path().read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def answer(self, file: Path, content: str) -> bool | None:
        """True: accepted, False: refused, None: this content was never answered."""
        entry = self._read().get(str(file))
        if not isinstance(entry, dict) or entry.get("sha256") != content:
            return None
        return entry.get("accepted") is True

    def record(self, file: Path, content: str, accepted: bool) -> None:
        path = self._path()
        data = self._read()
        data[str(file)] = {"sha256": content, "accepted": accepted}
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".accepted-rules-")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(data, out, indent=1, sort_keys=True)
            os.replace(temporary, path)  # whole or not at all
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
