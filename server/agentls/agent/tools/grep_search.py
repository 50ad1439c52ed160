"""grep_search: regex search over workspace files (live buffers for open files)."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..workspace import Workspace, looks_binary
from .base import Tool, ToolContext, ToolOutput, describe_failure, error, one_line, plural, split_lines
from .walk import glob_matcher, ignored, to_thread_stoppable, walk

# A matching minified line would otherwise swamp the result.
LINE_CLIP = 300

DESCRIPTION = (
    "Search file contents with a Python regular expression, line by line. "
    "Returns `path:line: text` lines. Optional glob filters files "
    "(gitignore-style: '*.py', 'src/**/*.ts', '*.{js,ts}'); optional path limits "
    "the search to a folder or file. Skips .gitignored, binary and .git files."
)

SCHEMA = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "description": "Python regex, e.g. 'def \\w+_test' or '(?i)todo'."},
        "glob": {"type": "string", "description": "Only files matching this glob."},
        "path": {"type": "string", "description": "Folder or file to search (default: whole workspace)."},
    },
    "required": ["pattern"],
}


@dataclass
class _Found:
    lines: list[str] = field(default_factory=list)
    total: int = 0
    files: int = 0


def _clip(line: str) -> str:
    line = line.strip()
    return line if len(line) <= LINE_CLIP else line[:LINE_CLIP] + "…"


def _disk_text(ws: Workspace, path: Path) -> str | None:
    """File text for searching, or None for binary / oversized / unreadable files."""
    try:
        if path.stat().st_size > ws.max_file_bytes:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if looks_binary(data):
        return None
    return data.decode("utf-8", errors="replace")  # latin-1 sources are still worth searching


def _candidates(
    ws: Workspace, start: Path, wanted: Callable[[str], bool] | None, live: dict[Path, str], stop: threading.Event
) -> Iterator[Path]:
    if start.is_file() or start in live:
        yield start  # an explicitly named file is searched whatever the glob
        return
    root = ws.root_of(start) or start

    def keep(path: Path) -> bool:
        return wanted is None or wanted(path.relative_to(root).as_posix())

    seen: set[Path] = set()
    for entry in walk(ws, start, stop):
        if not entry.is_dir and keep(entry.path):
            real = Path(os.path.realpath(entry.path)) if entry.is_link else entry.path
            if real not in seen:  # a link to a file already searched is not searched twice
                seen.add(real)
                yield real
    # Open buffers that are not on disk yet (new, unsaved files) count too.
    for path in sorted(live):
        if path not in seen and path.is_relative_to(start) and keep(path) and not ignored(ws, path):
            yield path


def _search(
    ws: Workspace,
    starts: list[Path],
    regex: re.Pattern[str],
    wanted: Callable[[str], bool] | None,
    live: dict[Path, str],
    cap: int,
    *,
    stop: threading.Event,
) -> _Found:
    found = _Found()
    for start in starts:
        for path in _candidates(ws, start, wanted, live, stop):
            text = live.get(path)
            if text is None:
                text = _disk_text(ws, path)
            if text is None:
                continue
            hit = False
            for number, line in enumerate(split_lines(text), 1):
                if regex.search(line):
                    hit = True
                    found.total += 1
                    if len(found.lines) < cap:
                        found.lines.append(f"{ws.display(path)}:{number}: {_clip(line)}")
            found.files += hit
    return found


async def run(input: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    pattern: str = input["pattern"]
    glob: str | None = input.get("glob")
    raw_path: str | None = input.get("path")
    short = f"grep /{one_line(pattern, 40)}/"
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        return error(f"Invalid regex {pattern!r}: {exc}. Use Python `re` syntax.", f"{short} (invalid regex)")
    ws = ctx.workspace
    try:
        starts = [ws.resolve(raw_path)] if raw_path is not None else list(ws.roots)
        if not any(s.exists() for s in starts) and not any(ws.live_text(s) is not None for s in starts):
            raise FileNotFoundError(raw_path)
    except Exception as exc:  # noqa: BLE001
        return error(describe_failure(exc, raw_path or "."), f"{short} (failed)")
    # Buffers are collected here, on the loop: the LSP layer's documents are not thread-safe.
    live = {Path(os.path.realpath(p)): text for p, text in ws.open_documents().items()}
    wanted = glob_matcher(glob) if glob else None
    found = await to_thread_stoppable(_search, ws, starts, regex, wanted, live, ctx.grep_cap)

    where = f" in {raw_path}" if raw_path else ""
    where += f" (glob {glob})" if glob else ""
    if found.total == 0:
        return ToolOutput(f"No matches for /{pattern}/{where}.", False, f"{short} → no matches")
    text = "\n".join(found.lines)
    if found.total > len(found.lines):
        text += f"\n… {found.total - len(found.lines)} more matches (narrow the pattern, glob or path)"
    summary = f"{short} → {plural(found.total, 'match', 'matches')} in {plural(found.files, 'file')}"
    return ToolOutput(text, False, summary)


TOOL = Tool("grep_search", DESCRIPTION, SCHEMA, run)
