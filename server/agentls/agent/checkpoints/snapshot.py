"""A fast snapshot of a workspace's files: what every non-ignored file holds, by hash.

The walk is `git status`'s, in Python: folders are listed and matched
against the `.gitignore` files from the root down (`.git` itself is never
entered); each regular file is `lstat`ed, and a file whose (size, mtime_ns,
inode) is what the previous snapshot saw is not read again. A folder whose
(mtime_ns, inode) and `.gitignore` chain did not change is not even listed
again: adding, removing or renaming an entry changes its folder's mtime.

Timestamps have a coarse granularity (a jiffy on many file systems), so a
file or folder changed within RACY_NS of the moment it was read could
change again without its stamp moving; like git's "racily clean" entries it
is re-read at the next snapshot rather than trusted.

Not snapshotted, and listed as skipped when a turn changes them: files over
MAX_FILE_BYTES, binary files (a NUL in the first 8 KiB, git's test), and
anything that is not a regular file (symlinks are neither followed nor
restored). Files and folders a `.gitignore` leaves out are not read either, but
their names are kept (a folder as one entry, never entered): a turn that
deletes or changes them (a shell `rm` of `.env` or `build/`) is named too.
Not read either: `.git/info/exclude` and the global excludes file
(only `.gitignore` files count).
"""

from __future__ import annotations

import os
import stat
import threading
import time
from dataclasses import dataclass, field

import pathspec

from ..workspace import BINARY_SNIFF_BYTES, encodable
from .blobs import BlobStore, digest

MAX_FILE_BYTES = 2 * 1024 * 1024  # larger files are not saved in checkpoints (documented in docs/protocol.md)
RACY_NS = 1_000_000_000  # a stamp younger than this at read time is not trusted next time
# Temporary files of a restore in progress (restore.py); never part of a snapshot.
TEMP_MARK = ".agentls-restore-"

Key = tuple[int, int, int]  # (size, mtime_ns, inode)
IGNORED = "ignored by .gitignore (not saved)"


@dataclass(frozen=True)
class FileState:
    key: Key
    hash: str | None  # None: not saved (see skipped)
    skipped: str = ""  # why the content is not saved: "binary", "too large (N bytes)"
    link: str | None = None  # a symbolic link: what it points to (never followed)
    mode: int | None = None  # permission bits (a restore gives an owner-only file back owner-only)

    def same_content(self, other: FileState) -> bool:
        if self.hash is not None and other.hash is not None:
            return self.hash == other.hash
        return self.key == other.key and self.hash == other.hash


@dataclass
class Snapshot:
    files: dict[str, FileState] = field(default_factory=dict)  # display path → state
    taken_at: float = 0.0
    seconds: float = 0.0


@dataclass
class _Folder:
    key: tuple[int, int]
    rules: tuple
    files: list[str]
    folders: list[str]
    racy: bool
    ignored: list[tuple[str, bool]] = field(default_factory=list)  # (name, is a folder): named, never read


class _Rules:
    """The .gitignore specs in force in one folder, deepest last."""

    def __init__(self, specs: tuple[tuple[str, pathspec.GitIgnoreSpec], ...]) -> None:
        self.specs = specs

    def ignored(self, rel: str, is_dir: bool) -> bool:
        for base, spec in reversed(self.specs):
            tail = rel[len(base) + 1:] if base else rel
            verdict = spec.check_file(encodable(tail + "/" if is_dir else tail)).include  # re2 takes UTF-8 only
            if verdict is not None:
                return verdict
        return False


class Snapshotter:
    """Snapshots of one workspace (its roots), remembering enough to make the next one cheap.

    Thread-safe: `take` runs in a worker thread; one snapshot at a time.
    """

    def __init__(self, roots: list[tuple[str, str]], blobs: BlobStore, max_file_bytes: int = MAX_FILE_BYTES,
                 exclude: tuple[str, ...] = ()) -> None:
        self.roots = roots  # (absolute root folder, display prefix: "" for one root, "name/" for several)
        self.blobs = blobs
        # folders never snapshotted, e.g. the data folder itself when it lies inside the workspace
        self.exclude = frozenset(os.path.realpath(folder) for folder in exclude)
        self.max_file_bytes = max_file_bytes
        self._files: dict[str, tuple[FileState, bool]] = {}  # display path → (state, racy)
        self._folders: dict[str, _Folder] = {}
        self._specs: dict[tuple[str, Key], pathspec.GitIgnoreSpec] = {}
        self._lock = threading.Lock()

    def take(self, overlay: dict[str, bytes] | None = None) -> Snapshot:
        """Every non-ignored file now; `overlay` (display path → bytes) stands for open editor buffers."""
        with self._lock:
            self._forget_if_pruned()
            started = time.perf_counter()
            now = time.time_ns()
            files: dict[str, FileState] = {}
            seen_folders: dict[str, _Folder] = {}
            for root, prefix in self.roots:
                self._visit(root, "", prefix, (), (), files, seen_folders, now)
            self._folders = seen_folders
            self._files = {path: self._files[path] for path in files if path in self._files}
            for path, data in (overlay or {}).items():
                files[path] = self._state((len(data), 0, 0), data)
            return Snapshot(files, time.time(), time.perf_counter() - started)

    def take_paths(self, paths: dict[str, str], overlay: dict[str, bytes] | None = None) -> Snapshot:
        """Only the named files (display path → absolute path), whether ignored or not: what a write_file
        or edit_file can change. Never follows a link (a link is its own state)."""
        with self._lock:
            self._forget_if_pruned()
            started, now = time.perf_counter(), time.time_ns()
            files: dict[str, FileState] = {}
            for shown, path in paths.items():
                if overlay and shown in overlay:
                    files[shown] = self._state((len(overlay[shown]), 0, 0), overlay[shown])
                    continue
                try:
                    info = os.lstat(path)
                except OSError:
                    continue  # not there (yet)
                if not stat.S_ISDIR(info.st_mode):
                    self._read(path, shown, info, (info.st_size, info.st_mtime_ns, info.st_ino), files, now)
            return Snapshot(files, time.time(), time.perf_counter() - started)

    def _forget_if_pruned(self) -> None:
        """After a prune, a file's remembered hash may name a content no longer stored: read every file again."""
        if self.blobs.fresh():
            self._files.clear()

    # -- the walk ------------------------------------------------------------------------

    def _visit(self, root: str, rel: str, prefix: str, specs: tuple, rules_key: tuple,
               out: dict[str, FileState], seen: dict[str, _Folder], now: int) -> None:
        folder = os.path.join(root, rel) if rel else root
        try:
            info = os.lstat(folder)
        except OSError:
            return
        ignore_file = os.path.join(folder, ".gitignore")
        try:
            ignore_info = os.stat(ignore_file)
            ignore_key: Key | None = (ignore_info.st_size, ignore_info.st_mtime_ns, ignore_info.st_ino)
        except OSError:
            ignore_key = None
        if ignore_key is not None:
            spec = self._spec(ignore_file, ignore_key)
            specs = (*specs, (rel, spec))
        rules_key = (*rules_key, ignore_key)
        key = (info.st_mtime_ns, info.st_ino)
        cache_key = prefix + rel
        cached = self._folders.get(cache_key)
        if cached is None or cached.racy or cached.key != key or cached.rules != rules_key:
            cached = self._list(folder, rel, _Rules(specs), key, rules_key, now - info.st_mtime_ns < RACY_NS)
        seen[cache_key] = cached
        # The hot loop of a snapshot (one lstat per file): locals, no os.path.join, no call when unchanged.
        # lstat relative to the folder's descriptor: the kernel resolves one name, not the whole path.
        base = folder + "/"
        shown_base = prefix + rel + "/" if rel else prefix
        known, lstat = self._files, os.lstat
        try:
            descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            descriptor = None
        try:
            for name in cached.files:
                shown = shown_base + name
                try:
                    info = lstat(name, dir_fd=descriptor) if descriptor is not None else lstat(base + name)
                except OSError:
                    continue  # gone since the folder was listed
                file_key = (info.st_size, info.st_mtime_ns, info.st_ino)
                found = known.get(shown)
                if found is not None and found[0].key == file_key and not found[1]:
                    out[shown] = found[0]
                else:
                    self._read(base + name, shown, info, file_key, out, now)
        finally:
            if descriptor is not None:
                os.close(descriptor)
        for name, is_folder in cached.ignored:
            try:
                info = lstat(base + name)
            except OSError:
                continue
            # a folder counts by its identity only: what is built inside it is not a change of its own
            named: Key = (0, 0, info.st_ino) if is_folder else (info.st_size, info.st_mtime_ns, info.st_ino)
            out[shown_base + name + ("/" if is_folder else "")] = FileState(named, None, IGNORED)
        for name in cached.folders:
            self._visit(root, f"{rel}/{name}" if rel else name, prefix, specs, rules_key, out, seen, now)

    def _list(self, folder: str, rel: str, rules: _Rules, key: tuple[int, int], rules_key: tuple,
              racy: bool) -> _Folder:
        files: list[str] = []
        folders: list[str] = []
        ignored: list[tuple[str, bool]] = []
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    name = entry.name
                    if name == ".git" or TEMP_MARK in name:
                        continue
                    child = f"{rel}/{name}" if rel else name
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            if entry.path in self.exclude:
                                continue
                            if rules.ignored(child, True):
                                ignored.append((name, True))
                            else:
                                folders.append(name)
                        elif rules.ignored(child, False):
                            ignored.append((name, False))
                        else:
                            files.append(name)  # symlinks and specials too: _file says they are skipped
                    except OSError:
                        continue
        except OSError:
            pass  # unreadable: nothing of it is snapshotted
        files.sort()
        folders.sort()
        ignored.sort()
        return _Folder(key, rules_key, files, folders, racy, ignored)

    def _spec(self, path: str, key: Key) -> pathspec.GitIgnoreSpec:
        found = self._specs.get((path, key))
        if found is None:
            try:
                with open(path, encoding="utf-8", errors="replace") as file:
                    found = pathspec.GitIgnoreSpec.from_lines(file.read().splitlines())
            except OSError:
                found = pathspec.GitIgnoreSpec.from_lines([])
            self._specs[(path, key)] = found
        return found

    def _read(self, path: str, shown: str, info: os.stat_result, key: Key, out: dict[str, FileState],
              now: int) -> None:
        """A new or changed file: read, hash and store it (or say why not)."""
        racy = now - info.st_mtime_ns < RACY_NS
        if stat.S_ISLNK(info.st_mode):
            try:
                state = FileState(key, None, "symlink", os.readlink(path))
            except OSError:
                return  # gone since it was listed
        elif not stat.S_ISREG(info.st_mode):
            state = FileState(key, None, "not a regular file")
        elif info.st_size > self.max_file_bytes:
            state = FileState(key, None, f"too large ({info.st_size} bytes; the limit is {self.max_file_bytes})")
        else:
            try:
                with open(path, "rb") as file:
                    data = file.read(self.max_file_bytes + 1)
            except OSError:
                return  # unreadable: as if it were not there
            state = self._state(key, data, stat.S_IMODE(info.st_mode))
        self._files[shown] = (state, racy)
        out[shown] = state

    def _state(self, key: Key, data: bytes, mode: int | None = None) -> FileState:
        if len(data) > self.max_file_bytes:
            return FileState(key, None, f"too large ({len(data)} bytes; the limit is {self.max_file_bytes})")
        if b"\0" in data[:BINARY_SNIFF_BYTES]:
            return FileState(key, None, "binary")
        return FileState(key, self.blobs.put(data, digest(data)), mode=mode)
