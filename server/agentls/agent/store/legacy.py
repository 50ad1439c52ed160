"""Migration of the JSONL session logs of agentls ≤ 0.x, on first start in a workspace.

Old layout: <data>/sessions/<folder name>-<sha1[:10] of the path>/<session id>/
log.jsonl, store/<ref>.txt, and a `current` file naming the session to resume.
Each log becomes a session (lines that do not read are skipped and reported);
the old files are left where they are. The `migrated` table makes it once.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

from .base import Database, StoreBusy, StoreError
from .jsonl import add_session, parse

REF_SCHEME = "context://"


def legacy_home(root: Path, base: Path) -> Path:
    resolved = str(Path(root).resolve())
    digest = hashlib.sha1(resolved.encode()).hexdigest()[:10]
    return base / "sessions" / f"{Path(resolved).name or 'root'}-{digest}"


def _refs(folder: Path) -> dict[str, str]:
    refs: dict[str, str] = {}
    for path in sorted(folder.glob("*.txt")) if folder.is_dir() else []:
        stem = path.stem
        ref = REF_SCHEME + (stem[:-len("_input")] + "/input" if stem.endswith("_input") else stem)
        try:
            refs[ref] = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
    return refs


def migrate(db: Database, root: Path, base: Path, *, raise_busy: bool = False) -> list[str]:
    """Import the workspace's old logs not imported yet; plain-words problems (StoreBusy raised
    when asked: the caller tries again once the other process let go)."""
    home = legacy_home(root, base)
    if not home.is_dir():
        return []
    try:
        current = (home / "current").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        current = ""
    problems: list[str] = []
    for folder in sorted(p for p in home.iterdir() if (p / "log.jsonl").is_file()):
        log = folder / "log.jsonl"
        try:
            if db.read("SELECT 1 FROM migrated WHERE source = ?", (str(log),)):
                continue
            parsed = parse(log.read_bytes())
            parsed.refs = _refs(folder / "store")
            # the session `current` named is the one to resume: it is made the most recent
            updated = time.time() if folder.name == current else None
            add_session(db, root, parsed, session_id=folder.name, updated=updated, source=str(log))
        except StoreBusy:
            if raise_busy:
                raise
            problems.append(f"The old session log {log} could not be imported yet (the database is busy); "
                            "it is imported next time.")
            continue
        except (OSError, StoreError) as error:
            problems.append(f"The old session log {log} could not be imported ({error}); it is left as it was.")
            continue
        if parsed.skipped:
            problems.append(f"{parsed.skipped} damaged line{'s' if parsed.skipped > 1 else ''} of the old session "
                            f"log {log} could not be read and {'was' if parsed.skipped == 1 else 'were'} skipped; "
                            "the file is left as it was.")
    return problems
