"""File contents by hash: the content-addressed store behind every checkpoint.

`<data folder>/checkpoints/blobs/ab/cdef…` holds zlib-compressed contents
named by the SHA-256 of the uncompressed bytes, shared by every session and
workspace of the data folder: a file that did not change between two
snapshots is stored once, however many checkpoints name it. A blob is
written to a temporary name and renamed into place, so a reader never sees
half of one. Snapshots write blobs without fsync (a first snapshot may write
thousands); `sync` makes the ones a checkpoint names durable before the
checkpoint itself is committed.
"""

from __future__ import annotations

import hashlib
import os
import zlib
from collections.abc import Iterable
from pathlib import Path

PRUNED = ".pruned"  # touched by every prune (prune.py): what a running window remembers may be gone
LEVEL = 1  # zlib's fastest level: source text still shrinks about 3×, at a fraction of level 6's time


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class BlobMissing(Exception):
    """A checkpoint names a content the store does not have (deleted by hand, or a damaged disk)."""


class BlobStore:
    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._known: set[str] = set()  # names seen stored by this process: no stat for them again
        self._folders: set[str] = set()
        self._pruned = 0  # the PRUNED marker's mtime as last seen

    def fresh(self) -> bool:
        """True when a prune ran since the last call: the names known stored are forgotten (the caller's
        own caches too), so the next snapshot stores again what it needs."""
        try:
            stamp = (self.folder / PRUNED).stat().st_mtime_ns
        except OSError:
            stamp = 0
        changed = stamp != self._pruned
        self._pruned = stamp
        if changed:
            self._known.clear()
        return changed

    def _path(self, name: str) -> Path:
        return self.folder / name[:2] / name[2:]

    def has(self, name: str) -> bool:
        return self._path(name).exists()

    def put(self, data: bytes, name: str | None = None) -> str:
        """Store `data` (its hash may be passed when already known); the hash."""
        name = name or digest(data)
        if name in self._known:
            return name
        path = self._path(name)
        if not path.exists():
            if name[:2] not in self._folders:
                path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                self._folders.add(name[:2])
            temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            # owner-only, whatever the file was: an 0600 secret is not readable by others from here
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with open(fd, "wb") as file:
                file.write(zlib.compress(data, LEVEL))
            os.replace(temporary, path)
        self._known.add(name)
        return name

    def get(self, name: str) -> bytes:
        try:
            data = zlib.decompress(self._path(name).read_bytes())
        except (OSError, zlib.error) as error:
            raise BlobMissing(f"the saved content {name[:12]} cannot be read ({error})") from None
        if digest(data) != name:
            raise BlobMissing(f"the saved content {name[:12]} is damaged")
        return data

    def sync(self, names: Iterable[str]) -> set[str]:
        """fsync the named blobs and their folders (what a checkpoint about to be committed names);
        the names not stored (pruned since they were written)."""
        folders, missing = set(), set()
        for name in set(names):
            path = self._path(name)
            try:
                fd = os.open(path, os.O_RDONLY)
            except FileNotFoundError:
                missing.add(name)
                self._known.discard(name)
                continue
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            folders.add(path.parent)
        for folder in folders:
            fsync_dir(folder)
        return missing


def fsync_dir(folder: Path | str) -> None:
    """Make a rename or unlink inside `folder` durable."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems refuse fsync on folders; the rename is still atomic
    finally:
        os.close(fd)
