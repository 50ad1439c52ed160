"""The files the agent may touch: path containment plus overridable text I/O.

Every tool path goes through `Workspace.resolve`, which returns the *real*
path (all symlinks resolved) and refuses anything outside the roots. The
I/O methods are the hooks the LSP layer overrides: it serves open editor
buffers from `open_documents()` and routes edits through `workspace/applyEdit`.

Relative paths: with one root they are relative to it. With several roots a
path whose first component is a root's folder name is relative to that root
(`api/src/x.py` → `<root named api>/src/x.py`); any other relative path is
relative to the first root. `display()` produces paths in that same form, so
what the tools print can be fed back in.
"""

from __future__ import annotations

import asyncio
import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote

# How much of a file is sniffed for NUL bytes (same heuristic as git/grep).
BINARY_SNIFF_BYTES = 8192


class WorkspaceError(Exception):
    """Base for the errors a tool turns into a readable `is_error` result."""


class PathRefused(WorkspaceError):
    """A path that is not allowed: outside the roots, home-relative, malformed."""

    def __init__(self, path: str, reason: str = "resolves outside the workspace roots") -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"refused: {path!r} {reason}")


class NotTextFile(WorkspaceError):
    """Binary or non-UTF-8 content, which is never sent to the model."""


class FileTooLarge(WorkspaceError):
    """A file too big to load into memory as text."""


class NotRegularFile(WorkspaceError):
    """A FIFO, device or socket: opening or reading it could block forever."""


class EditRejected(WorkspaceError):
    """The editor (or a subclass) refused to apply an edit."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def encodable(text: str) -> str:
    """`text` as UTF-8 can carry it. A file name that is not UTF-8 reaches Python with its odd bytes as
    lone surrogates (PEP 383); re2, JSON for the API and SQLite refuse those, so they are shown as
    `\\xe9` escapes instead (the name is still found on disk through the path it came from)."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape" if _only_escapes(text) else "backslashreplace").decode(
            "utf-8", "backslashreplace")


def _only_escapes(text: str) -> bool:
    """Every surrogate in `text` is one of the escapes os.fsdecode makes (U+DC80–U+DCFF)."""
    return all(not 0xD800 <= ord(c) <= 0xDFFF or 0xDC80 <= ord(c) <= 0xDCFF for c in text)


def looks_binary(head: bytes) -> bool:
    """True when the first bytes of a file contain a NUL (git's heuristic)."""
    return b"\0" in head[:BINARY_SNIFF_BYTES]


def read_regular_bytes(path: Path, max_bytes: int, shown: str) -> bytes:
    """The bytes of a regular file; anything else is refused before a read can block.

    stat() refuses FIFOs, devices and sockets without opening them; the
    O_NONBLOCK open plus fstat() closes the window in which one could be
    swapped in (opening a FIFO that way returns at once instead of waiting).
    """
    mode = path.stat().st_mode
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "is a directory", str(path))
    if not stat.S_ISREG(mode):
        raise NotRegularFile(f"{shown} is not a regular file (a FIFO, device or socket); not read")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a socket swapped in
            raise NotRegularFile(f"{shown} is not a regular file; not read") from None
        raise
    with open(fd, "rb") as file:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(f"{shown} is not a regular file (a FIFO, device or socket); not read")
        if info.st_size > max_bytes:
            raise FileTooLarge(f"{shown} is too large ({info.st_size} bytes); not shown")
        return file.read(max_bytes + 1)


def write_below(root: Path, parts: tuple[str, ...], data: bytes, shown: str) -> None:
    """Write `root/parts…` one component at a time, never following a symlink.

    The path was resolved (and approved) earlier; a folder or file replaced
    by a symlink meanwhile would carry the write elsewhere. Each folder is
    opened relative to its parent with O_NOFOLLOW (created if missing) and
    the file itself too, so what is written is what was checked.
    """
    if not parts:
        raise IsADirectoryError(errno.EISDIR, "is a directory", shown)
    directory = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for name in parts[:-1]:
            try:
                child = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=directory)
            except FileNotFoundError:
                os.mkdir(name, dir_fd=directory)
                child = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=directory)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise PathRefused(
                        shown, f"changed: {name!r} is now a symlink or not a folder; not written") from None
                raise
            os.close(directory)
            directory = child
        flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY
        try:
            fd = os.open(parts[-1], flags, 0o666, dir_fd=directory)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENXIO):
                raise PathRefused(shown, "changed into a symlink or a special file; not written") from None
            raise
        with open(fd, "wb") as file:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise NotRegularFile(f"{shown} is not a regular file; not written")
            os.set_blocking(fd, True)
            file.truncate(0)
            file.write(data)
    finally:
        os.close(directory)


def _real_path(candidate: str, shown: str) -> str:
    """Resolve every symlink in `candidate`; the missing tail (new files) is kept literally."""
    try:
        return os.path.realpath(candidate, strict=True)
    except FileNotFoundError:
        pass
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise PathRefused(shown, "goes through a symlink loop") from None
        # ENOTDIR, EACCES…: not an escape; the actual I/O will report it.
    real = os.path.realpath(candidate, strict=False)
    # Non-strict realpath silently gives up on symlink loops; make sure the
    # part of the path that exists really is fully resolved.
    existing = real
    while not os.path.lexists(existing):
        existing = os.path.dirname(existing)
    try:
        fully = os.path.realpath(existing, strict=True)
    except OSError as exc:
        raise PathRefused(shown, f"cannot be resolved ({exc.strerror or exc})") from None
    if fully != existing:
        raise PathRefused(shown, "goes through a symlink that cannot be resolved")
    return real


def _check_syntax(path: str) -> None:
    """Refuse inputs that are malformed or only look innocent."""
    if not isinstance(path, str) or not path.strip():
        raise PathRefused(str(path), "is empty; give a workspace-relative path")
    if "\0" in path:
        raise PathRefused(path, "contains a NUL byte")
    if path.startswith("~"):
        raise PathRefused(path, "is home-relative; use a workspace-relative path")
    for part in path.split("/"):
        # Percent-encoded or backslash dot-segments are literal names on POSIX,
        # but some layer (URIs, Windows tools) may decode them later: refuse.
        decoded = unquote(part)
        pieces = decoded.replace("\\", "/").split("/")
        if decoded != part and ("/" in decoded or "\\" in decoded or ".." in pieces):
            raise PathRefused(path, "contains an encoded path separator or '..'")
        if "\\" in part and ".." in pieces:
            raise PathRefused(path, "contains a backslash '..' segment")


class Workspace:
    """Filesystem-backed workspace. Subclass and override the async hooks."""

    # Files above this size are refused as text (they would flood memory and context).
    max_file_bytes = 20_000_000

    def __init__(self, roots: Iterable[str | os.PathLike[str]]) -> None:
        self.roots: list[Path] = []
        self.set_roots(roots)

    def set_roots(self, roots: Iterable[str | os.PathLike[str]]) -> None:
        # Roots are stored as real paths so containment checks compare like with like.
        resolved = [Path(os.path.realpath(os.fspath(r))) for r in roots]
        if not resolved:
            raise ValueError("a workspace needs at least one root folder")
        self.roots = resolved

    # ---- paths -------------------------------------------------------------

    def resolve(self, path: str) -> Path:
        """Real absolute path for `path`, or PathRefused if it leaves the roots.

        Works for paths that do not exist yet (write targets): existing parts
        are resolved through their symlinks, the missing tail is taken as is.
        """
        _check_syntax(path)
        real = Path(_real_path(os.fspath(self._anchor(path)), path))
        if self.root_of(real) is None:
            raise PathRefused(path)
        return real

    def resolve_entry(self, path: str) -> Path:
        """The absolute path of the entry `path` names, itself never followed: a link there is the
        link. PathRefused if a folder on the way is a symbolic link (in or out of the workspace) or
        the path is not below a root: what is written there is exactly what was named."""
        _check_syntax(path)
        anchored = Path(os.path.normpath(self._anchor(path)))
        parent = anchored.parent
        if Path(_real_path(os.fspath(parent), path)) != parent:
            raise PathRefused(path, "goes through a folder that is now a symbolic link; not written through it")
        if anchored in self.roots or self.root_of(anchored) is None:
            raise PathRefused(path)
        return anchored

    def _anchor(self, path: str) -> Path:
        """Absolute (not yet resolved) form of `path`, per the module's rules."""
        p = Path(path)
        if p.is_absolute():
            return p
        if len(self.roots) > 1:
            first, _, rest = path.partition("/")
            for root in self.roots:
                if root.name == first:
                    return root / rest
        return self.roots[0] / p

    def root_of(self, real: Path) -> Path | None:
        """The root containing the (already real) path, if any."""
        for root in self.roots:
            # is_relative_to compares whole components: /tmp/ws2 is not inside /tmp/ws.
            if real == root or real.is_relative_to(root):
                return root
        return None

    def contains(self, path: Path) -> bool:
        """Whether `path`, after resolving symlinks, lies inside a root."""
        try:
            real = Path(_real_path(os.fspath(path), str(path)))
        except PathRefused:
            return False
        return self.root_of(real) is not None

    def display(self, path: Path) -> str:
        """Short, re-resolvable name for a real path (root-relative, POSIX slashes)."""
        root = self.root_of(path)
        if root is None:
            return str(path)
        rel = path.relative_to(root).as_posix()
        if len(self.roots) > 1:
            return root.name if rel == "." else f"{root.name}/{rel}"
        return rel

    # ---- hooks the LSP layer overrides -------------------------------------

    def open_documents(self) -> dict[Path, str]:
        """Live texts of open editor buffers (possibly unsaved). Default: none."""
        return {}

    def live_text(self, path: Path) -> str | None:
        """The open buffer's text for a real path, if that file is open."""
        for doc_path, text in self.open_documents().items():
            if doc_path == path or Path(os.path.realpath(doc_path)) == path:
                return text
        return None

    async def read_text(self, path: Path) -> str:
        """Text of a file: the live buffer if open, else UTF-8 from disk."""
        live = self.live_text(path)
        if live is not None:
            return live
        return await asyncio.to_thread(self._read_disk_text, path)

    def _read_disk_text(self, path: Path) -> str:
        data = read_regular_bytes(path, self.max_file_bytes, self.display(path))
        if looks_binary(data):
            raise NotTextFile(f"{self.display(path)} is a binary file ({len(data)} bytes); not shown")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise NotTextFile(
                f"{self.display(path)} is not UTF-8 text ({len(data)} bytes); not shown"
            ) from None

    async def write_text(self, path: Path, text: str) -> None:
        """Create or overwrite a file (parent folders are created)."""
        await asyncio.to_thread(self._write_disk_text, path, text)

    def _write_disk_text(self, path: Path, text: str) -> None:
        root = self.root_of(path)
        if root is None:
            raise PathRefused(str(path))
        # Bytes, so line endings are written exactly as given.
        write_below(root, path.relative_to(root).parts, text.encode("utf-8"), self.display(path))

    def recheck(self, path: Path) -> None:
        """Refuse a real path that no longer resolves to itself (a symlink swapped in since it was approved)."""
        shown = self.display(path)
        if Path(_real_path(os.fspath(path), shown)) != path or self.root_of(path) is None:
            raise PathRefused(shown, "changed into a symlink after it was checked; not written")

    async def apply_text_edit(self, path: Path, old_text: str, new_text: str, new_full_text: str) -> None:
        """Replace the single occurrence of old_text. Raise EditRejected if refused.

        The LSP layer turns this into a `workspace/applyEdit`; on disk the
        full new text is simply written.
        """
        await self.write_text(path, new_full_text)

    async def files_restored(self, contents: dict[Path, bytes | None]) -> None:
        """A rewind has put these contents on disk (None: deleted). The LSP layer updates open
        buffers to match; on disk alone there is nothing more to do."""

    # ---- small queries -----------------------------------------------------

    async def exists(self, path: Path) -> bool:
        if self.live_text(path) is not None:
            return True
        return await asyncio.to_thread(path.exists)

    async def is_dir(self, path: Path) -> bool:
        return await asyncio.to_thread(path.is_dir)

    async def list_dir(self, path: Path) -> list[Path]:
        """Direct children of a folder, sorted by name (no filtering)."""
        return await asyncio.to_thread(lambda: sorted(path.iterdir()))
