"""Putting files back, so that a crash at any moment leaves each file old or new, never torn.

A restore is a list of `Put(path, data)` (data None: delete the file; `link`: make it a
symbolic link). The path itself is replaced (os.replace over a link replaces the link), so
nothing is ever written through a link. In order:
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

Each session has its own journal folder, and a restore holds an exclusive
`flock` on it from the first step to the last: another window's restore (or
its recovery at start) never reads, finishes or rolls back a journal that a
live restore is using. The kernel drops the lock of a process that dies, so a
crashed restore's journal is free to be recovered.

FAULT_ENV names a step at which a test process dies (os._exit), to prove
the above by killing a restore half way.
"""

from __future__ import annotations

import fcntl
import json
import os
import stat
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .blobs import fsync_dir
from .snapshot import TEMP_MARK

JOURNAL = "restore-journal.json"
LOCK = "restore.lock"
# "prepare:N" / "commit:N": die after the Nth temporary file, or the Nth rename (tests only)
FAULT_ENV = "AGENTLS_RESTORE_FAULT"


@dataclass(frozen=True)
class Put:
    path: Path  # absolute, inside the workspace, its folder reached through no link (checked by the caller)
    data: bytes | None  # None: the file must not exist (unless `link`)
    link: str | None = None  # a symbolic link to put there, pointing at this (what a rewind took away)
    mode: int | None = None  # the permission bits to give it (None: the replaced file's, else the umask's)


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


@contextmanager
def locked(journal_folder: Path, *, wait: bool = True) -> Iterator[bool]:
    """Hold the journal folder's lock (True), or, with wait=False, False at once when a live restore holds it."""
    journal_folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(journal_folder / LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)  # closing the descriptor drops the lock


def restore(puts: list[Put], journal_folder: Path, extra: dict | None = None) -> list[Path]:
    """Apply every Put, crash-safely; the paths put in place. RestoreError (nothing changed) if a temporary
    file cannot be written. `extra` is kept in the journal (what recovery tells the caller)."""
    with locked(journal_folder):
        recover_locked(journal_folder)  # a previous restore of this journal that died finishes first
        token = uuid.uuid4().hex[:8]
        steps = []
        for put in puts:
            temporary = (put.path.with_name(f"{put.path.name}{TEMP_MARK}{token}")
                         if put.data is not None or put.link is not None else None)
            steps.append({"path": str(put.path), "temp": str(temporary) if temporary else None})
        _write_journal(journal_folder, {"state": "prepare", "steps": steps, **(extra or {})})
        try:
            for written, (put, step) in enumerate(zip(puts, steps), start=1):
                temp = step["temp"]
                if temp is None:
                    continue
                put.path.parent.mkdir(parents=True, exist_ok=True)
                if put.link is not None:
                    os.symlink(put.link, temp)
                else:
                    assert put.data is not None
                    mode = put.mode if put.mode is not None else _mode_of(put.path)
                    _write_synced(Path(temp), put.data)
                    if mode is not None:
                        os.chmod(temp, mode)
                _fault("prepare", written)
        except OSError as error:
            _roll_back(steps, journal_folder)
            raise RestoreError(f"{error.filename or 'a file'} cannot be written ({error.strerror or error}); "
                               "nothing was restored") from None
        _write_journal(journal_folder, {"state": "commit", "steps": steps, **(extra or {})})
        return _commit(steps, journal_folder)


def _mode_of(path: Path) -> int | None:
    """The permission bits of the regular file being replaced (an executable stays executable)."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_mode & 0o7777 if stat.S_ISREG(info.st_mode) else None


def _commit(steps: list[dict], journal_folder: Path) -> list[Path]:
    """Put every prepared file in place; the paths that now hold what the journal says."""
    folders, done_paths = set(), []
    for done, step in enumerate(steps, start=1):
        target = Path(step["path"])
        if step["temp"] is not None:
            if not os.path.lexists(step["temp"]):
                continue  # its temporary file is gone: this file was not restored (never claimed as done)
            os.replace(step["temp"], target)
        else:
            try:
                os.unlink(target)
            except FileNotFoundError:
                pass
            except IsADirectoryError:
                continue
        done_paths.append(target)
        folders.add(target.parent)
        _fault("commit", done)
    for folder in folders:
        fsync_dir(folder)
    (journal_folder / JOURNAL).unlink(missing_ok=True)
    return done_paths


def _roll_back(steps: list[dict], journal_folder: Path) -> None:
    for step in steps:
        if step["temp"] is not None:
            Path(step["temp"]).unlink(missing_ok=True)
    (journal_folder / JOURNAL).unlink(missing_ok=True)


@dataclass(frozen=True)
class Recovered:
    completed: bool  # True: the interrupted restore was finished; False: rolled back (nothing had changed)
    files: int
    journal: dict  # the whole journal (the caller's `extra` with it)

    def words(self) -> str:
        if self.completed:
            return f"a rewind interrupted earlier was completed ({self.files} files)"
        return "a rewind interrupted before it changed anything was undone"


def recover(journal_folder: Path) -> Recovered | None:
    """Finish (or undo) a restore a crash interrupted, unless a live restore holds the journal now."""
    if not (journal_folder / JOURNAL).exists():
        return None
    with locked(journal_folder, wait=False) as mine:
        return recover_locked(journal_folder) if mine else None


def recover_locked(journal_folder: Path) -> Recovered | None:
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
        return Recovered(True, len(steps), body)
    _roll_back(steps, journal_folder)
    return Recovered(False, len(steps), body)
