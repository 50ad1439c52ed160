"""Gitignore-aware tree walking shared by list_files and grep_search.

The walk itself is synchronous and meant for `to_thread_stoppable`, so a
large tree never blocks the event loop and a cancelled tool call stops the
thread at the next entry instead of walking on in the background.
"""

from __future__ import annotations

import asyncio
import os
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pathspec

from ..workspace import Workspace, encodable

T = TypeVar("T")


async def to_thread_stoppable(fn: Callable[..., T], *args: Any) -> T:
    """Run `fn(*args, stop=event)` in a thread; cancelling the task sets the event."""
    stop = threading.Event()
    try:
        return await asyncio.to_thread(fn, *args, stop=stop)
    except asyncio.CancelledError:
        stop.set()
        raise


# Left out of searches and listings like `.git`: what other agent clients keep in the workspace — agent-shell
# (Emacs) writes its transcripts to <project>/.agent-shell/transcripts/ (and screenshots beside them), so a
# search would match the conversation about the code rather than the code. Patterns of the root's ignore
# rules, before its own files: a `!/.agent-shell/` line in the root's .ignore (or .gitignore) searches it again.
DEFAULT_EXCLUDES: tuple[str, ...] = ("/.agent-shell/",)
IGNORE_FILES = (".gitignore", ".ignore")  # .ignore: ripgrep's file for what only searches skip (it wins)


class IgnoreRules:
    """.gitignore and .ignore files from the root down (at the root, after DEFAULT_EXCLUDES); the deepest
    file with a verdict wins."""

    def __init__(self, root: Path, defaults: tuple[str, ...] = DEFAULT_EXCLUDES) -> None:
        self.root = root
        self.defaults = defaults
        self._specs: dict[Path, pathspec.GitIgnoreSpec | None] = {}

    def _spec(self, folder: Path) -> pathspec.GitIgnoreSpec | None:
        if folder not in self._specs:
            lines: list[str] = list(self.defaults) if folder == self.root else []
            found = bool(lines)
            for name in IGNORE_FILES:
                try:
                    lines += (folder / name).read_text(encoding="utf-8", errors="replace").splitlines()
                    found = True
                except OSError:
                    pass
            self._specs[folder] = pathspec.GitIgnoreSpec.from_lines(lines) if found else None
        return self._specs[folder]

    def ignored(self, path: Path, is_dir: bool) -> bool:
        if path == self.root or not path.is_relative_to(self.root):
            return False
        folder = path.parent
        while True:
            spec = self._spec(folder)
            if spec is not None:
                # A trailing slash lets directory-only patterns ("build/") apply.
                rel = path.relative_to(folder).as_posix() + ("/" if is_dir else "")
                verdict = spec.check_file(encodable(rel)).include  # re2 takes UTF-8 only
                if verdict is not None:
                    return verdict
            if folder == self.root:
                return False
            folder = folder.parent


@dataclass(frozen=True)
class Entry:
    path: Path
    is_dir: bool
    is_link: bool = False


def walk(ws: Workspace, start: Path, stop: threading.Event | None = None) -> Iterator[Entry]:
    """Entries below `start`, depth-first in name order.

    Skips `.git`, ignored paths and symlinks leading out of the roots.
    Symlinked folders are listed but not entered (no loops, no duplicates).
    """
    root = ws.root_of(start) or start
    # A walk asked for inside a folder left out by default (list the transcripts) lists it.
    rules = IgnoreRules(root, () if IgnoreRules(root, DEFAULT_EXCLUDES).ignored(start, True)
                        and not IgnoreRules(root, ()).ignored(start, True) else DEFAULT_EXCLUDES)

    def visit(folder: Path) -> Iterator[Entry]:
        try:
            with os.scandir(folder) as it:
                children = sorted(it, key=lambda e: e.name)
        except OSError:
            return  # unreadable folder: skip it rather than fail the whole walk
        for child in children:
            if stop is not None and stop.is_set():
                return
            if child.name == ".git":
                continue
            path = Path(child.path)
            is_link = child.is_symlink()
            if is_link and not ws.contains(path):
                continue
            try:
                is_dir = child.is_dir()
            except OSError:
                continue
            if rules.ignored(path, is_dir):
                continue
            yield Entry(path, is_dir, is_link)
            if is_dir and not is_link:
                yield from visit(path)

    yield from visit(start)


def ignored(ws: Workspace, path: Path, is_dir: bool = False) -> bool:
    """Whether a single path is ignored by the .gitignore files of its root."""
    root = ws.root_of(path)
    return root is not None and IgnoreRules(root).ignored(path, is_dir)


_BRACES = re.compile(r"\{([^{}]*,[^{}]*)\}")


def expand_braces(glob: str) -> list[str]:
    """'*.{ts,tsx}' → ['*.ts', '*.tsx'] (gitignore patterns have no braces)."""
    m = _BRACES.search(glob)
    if m is None:
        return [glob]
    out: list[str] = []
    for alt in m.group(1).split(","):
        out.extend(expand_braces(glob[: m.start()] + alt + glob[m.end():]))
    return out


def glob_matcher(glob: str) -> Callable[[str], bool]:
    """Match root-relative POSIX paths with gitignore-style globs.

    '*.py' matches at any depth, 'src/*.py' is anchored at the root,
    '**' spans folders, 'tests/' matches everything under tests.
    """
    spec = pathspec.GitIgnoreSpec.from_lines(expand_braces(glob))
    return lambda path: spec.match_file(encodable(path))
