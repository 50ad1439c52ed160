"""Putting files back, so that a crash at any moment leaves each file old or new, never torn.

A restore is a list of `Put(path, data)` (data None: delete the file). In order:
1. the journal is written (every path, its temporary name, what happens to it) and fsynced,
   in state "prepare";
2. each new content is written to its temporary file beside the target and fsynced;
3. the journal is switched to "commit" (a rename: atomic);
4. each temporary file is renamed over its target (os.replace: atomic), deletions are done,
   the folders are fsynced;
5. the journal is removed.
`recover` runs what a crashed restore left: in "prepare" it removes the
temporary files (every file is still old); in "commit" it finishes the
renames and deletions (every file becomes new). Temporary files carry
TEMP_MARK in their name, which snapshots skip.

FAULT_ENV names a step at which a test process dies (os._exit), to prove
the above by killing a restore half way.
"""

from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass
from pathlib import Path

from .blobs import fsync_dir
from .snapshot import TEMP_MARK

JOURNAL = "restore-journal.json"
# "prepare:N" / "commit:N": die after the Nth temporary file, or the Nth rename (tests only)
FAULT_ENV = "AGENTLS_RESTORE_FAULT"


@dataclass(frozen=True)
class Put:
    path: Path  # absolute, inside the workspace (checked by the caller)
    data: bytes | None  # None: the file must not exist


class RestoreError(Exception):
    """A restore could not be prepared; nothing was changed (plain words)."""


def _fault(step: str, count: int) -> None:
    wanted = os.environ.get(FAULT_ENV)
    if wanted and wanted == f"{step}:{count}":
        os._exit(70)


def _write_synced(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_journal(folder: Path, body: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    temporary = folder / f".{JOURNAL}.tmp"
    _write_synced(temporary, json.dumps(body).encode())
    os.replace(temporary, folder / JOURNAL)
    fsync_dir(folder)


def restore(puts: list[Put], journal_folder: Path) -> None:
    """Apply every Put, crash-safely. RestoreError (nothing changed) if a temporary file cannot be written."""
    recover(journal_folder)  # a previous restore that died finishes first
    token = uuid.uuid4().hex[:8]
    steps = []
    for put in puts:
        temporary = put.path.with_name(f"{put.path.name}{TEMP_MARK}{token}") if put.data is not None else None
        steps.append({"path": str(put.path), "temp": str(temporary) if temporary else None})
    _write_journal(journal_folder, {"state": "prepare", "steps": steps})
    try:
        for written, (put, step) in enumerate(zip(puts, steps), start=1):
            if put.data is None:
                continue
            put.path.parent.mkdir(parents=True, exist_ok=True)
            mode = _mode_of(put.path)
            temp = step["temp"]
            assert temp is not None  # named above for every put with data
            _write_synced(Path(temp), put.data)
            if mode is not None:
                os.chmod(temp, mode)
            _fault("prepare", written)
    except OSError as error:
        _roll_back(steps, journal_folder)
        raise RestoreError(f"{error.filename or 'a file'} cannot be written ({error.strerror or error}); "
                           "nothing was restored") from None
    _write_journal(journal_folder, {"state": "commit", "steps": steps})
    _commit(steps, journal_folder)


def _mode_of(path: Path) -> int | None:
    """The permission bits of the file being replaced (an executable stays executable)."""
    try:
        return os.lstat(path).st_mode & 0o7777
    except OSError:
        return None


def _commit(steps: list[dict], journal_folder: Path) -> None:
    folders = set()
    for done, step in enumerate(steps, start=1):
        target = Path(step["path"])
        if step["temp"] is not None:
            if os.path.lexists(step["temp"]):
                os.replace(step["temp"], target)
        else:
            try:
                os.unlink(target)
            except FileNotFoundError:
                pass
        folders.add(target.parent)
        _fault("commit", done)
    for folder in folders:
        fsync_dir(folder)
    (journal_folder / JOURNAL).unlink(missing_ok=True)


def _roll_back(steps: list[dict], journal_folder: Path) -> None:
    for step in steps:
        if step["temp"] is not None:
            Path(step["temp"]).unlink(missing_ok=True)
    (journal_folder / JOURNAL).unlink(missing_ok=True)


def recover(journal_folder: Path) -> str | None:
    """Finish (or undo) a restore a crash interrupted; what was done, in plain words, or None."""
    path = journal_folder / JOURNAL
    try:
        body = json.loads(path.read_text())
        steps = body["steps"]
        state = body["state"]
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        path.unlink(missing_ok=True)  # torn before it was complete: nothing had been renamed yet
        return None
    if state == "commit":
        _commit(steps, journal_folder)
        return f"a rewind interrupted earlier was completed ({len(steps)} files)"
    _roll_back(steps, journal_folder)
    return "a rewind interrupted before it changed anything was undone"
