"""grep_search: regex search over workspace files (live buffers for open files).

Matching uses RE2 (`google-re2`), not Python's `re`: RE2 runs in time linear
in the text whatever the pattern, so `(a+)+$` over a minified line costs
what `a` costs, and its C++ matcher releases the GIL, so the event loop
keeps answering while a search runs in its worker thread. (A killable
subprocess around `re` would keep every construct, but would pay a process
and a copy of each file per search, and still burn a core until killed.)
RE2 has no backreferences or lookaround: such patterns are refused with a
message saying so. The pattern is checked with `re` first, so a plain
syntax error reads as before.

Each file is searched in chunks of whole lines: one multi-line RE2 pass
finds candidate lines, each candidate is then matched on its own (the tool
stays line by line). Between chunks and candidates the thread checks Stop,
the file's time budget and the whole search's, and says in the result
what it skipped.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import re2

from ..workspace import NotRegularFile, Workspace, WorkspaceError, looks_binary, read_regular_bytes
from .base import Tool, ToolContext, ToolOutput, Withheld, describe_failure, error, one_line, plural
from .walk import glob_matcher, ignored, to_thread_stoppable, walk

# A matching minified line would otherwise swamp the result.
LINE_CLIP = 300
# Bytes searched between two looks at the clock and at Stop.
CHUNK = 1 << 20

DESCRIPTION = (
    "Search file contents with a regular expression (RE2 syntax: like Python's, without "
    "backreferences or lookaround), line by line. "
    "Returns `path:line: text` lines. Optional glob filters files "
    "(gitignore-style: '*.py', 'src/**/*.ts', '*.{js,ts}'); optional path limits "
    "the search to a folder or file. Skips .gitignored, binary and .git files."
)

SCHEMA = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string", "description": "Regex, e.g. 'def \\w+_test' or '(?i)todo'."},
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
    cut_files: list[str] = field(default_factory=list)  # over their own time budget
    out_of_time: bool = False  # the whole search's budget ran out


class _OutOfTime(Exception):
    pass


@dataclass(frozen=True)
class Pattern:
    line: Any  # re2 regex matched against one line
    lines: Any  # the same with ^/$ at line breaks, run over a chunk to find candidates

    def __init__(self, pattern: str) -> None:
        options = re2.Options()
        options.log_errors = False
        object.__setattr__(self, "line", re2.compile(pattern, options))
        object.__setattr__(self, "lines", re2.compile("(?m)" + pattern, options))


def compile_pattern(pattern: str) -> Pattern | str:
    """The compiled pattern, or the message saying why it cannot be used."""
    try:
        re.compile(pattern)
    except re.error as exc:
        return f"Invalid regex {pattern!r}: {exc}. Use Python `re` syntax."
    if re.search(r"\\[AZ]", pattern):
        return (f"Regex {pattern!r} uses \\A or \\Z, which are not supported here; "
                "use ^ and $ (they match at line ends).")
    try:
        return Pattern(pattern)
    except re2.error:
        return (f"Regex {pattern!r} uses a construct that is not supported: backreferences (\\1, (?P=name)) and "
                "lookahead/lookbehind ((?=…), (?!…), (?<=…), (?<!…)) have no linear-time match. "
                "Search for a simpler pattern and read the matching files instead.")


def _clip(line: str) -> str:
    line = line.strip()
    return line if len(line) <= LINE_CLIP else line[:LINE_CLIP] + "…"


def _disk_text(ws: Workspace, path: Path) -> str | None:
    """File text for searching, or None for binary / oversized / special / unreadable files."""
    try:
        data = read_regular_bytes(path, ws.max_file_bytes, str(path))
    except (OSError, WorkspaceError):
        return None
    if looks_binary(data):
        return None
    return data.decode("utf-8", errors="replace")  # latin-1 sources are still worth searching


def _chunks(text: str) -> Iterator[tuple[int, bytes]]:
    """(number of the first line, UTF-8 bytes of whole lines joined by \\n), about CHUNK bytes each."""
    joined = text.replace("\r\n", "\n").replace("\r", "\n")
    if joined.endswith("\n"):
        joined = joined[:-1]  # a final newline ends the last line (split_lines' rule)
    if not text:
        return
    data = joined.encode("utf-8", errors="replace")
    start, number = 0, 1
    while start <= len(data):
        end = data.find(b"\n", min(start + CHUNK, len(data)))
        end = len(data) if end == -1 else end
        yield number, data[start:end]
        number += data.count(b"\n", start, end) + 1
        start = end + 1


def _matching_lines(text: str, pattern: Pattern, deadline: float, stop: threading.Event) -> Iterator[tuple[int, str]]:
    """(line number, line) of every matching line; _OutOfTime past the deadline."""
    for first, chunk in _chunks(text):
        pos, number = 0, first
        while pos <= len(chunk):
            if stop.is_set():
                return
            if time.monotonic() > deadline:
                raise _OutOfTime
            found = pattern.lines.search(chunk, pos)
            if found is None:
                break
            at = found.start()
            begin = chunk.rfind(b"\n", 0, at) + 1 if at > pos else pos
            end = chunk.find(b"\n", at)
            end = len(chunk) if end == -1 else end
            number += chunk.count(b"\n", pos, begin)
            line = chunk[begin:end]
            if pattern.line.search(line) is not None:  # a multi-line hit is only a candidate
                yield number, line.decode("utf-8", errors="replace")
            pos, number = end + 1, number + 1


def _candidates(
    ws: Workspace, start: Path, wanted: Callable[[str], bool] | None, live: dict[Path, str],
    withheld: Withheld | None, stop: threading.Event
) -> Iterator[Path]:
    def allowed(path: Path) -> bool:  # a file a deny rule keeps from the agent is not searched, named or not
        return withheld is None or not (withheld(path, False) or withheld(Path(os.path.realpath(path)), False))

    if start.is_file() or start in live:
        if allowed(start):
            yield start  # an explicitly named file is searched whatever the glob
        return
    root = ws.root_of(start) or start

    def keep(path: Path) -> bool:
        return (wanted is None or wanted(path.relative_to(root).as_posix())) and allowed(path)

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
    pattern: Pattern,
    wanted: Callable[[str], bool] | None,
    live: dict[Path, str],
    withheld: Withheld | None,
    cap: int,
    budgets: tuple[float, float],
    *,
    stop: threading.Event,
) -> _Found:
    found = _Found()
    per_file, whole = budgets
    search_deadline = time.monotonic() + whole
    for start in starts:
        for path in _candidates(ws, start, wanted, live, withheld, stop):
            if stop.is_set():
                return found
            if time.monotonic() > search_deadline:
                found.out_of_time = True
                return found
            text = live.get(path)
            if text is None:
                text = _disk_text(ws, path)
            if text is None:
                continue
            deadline = min(search_deadline, time.monotonic() + per_file)
            hit = False
            try:
                for number, line in _matching_lines(text, pattern, deadline, stop):
                    hit = True
                    found.total += 1
                    if len(found.lines) < cap:
                        found.lines.append(f"{ws.display(path)}:{number}: {_clip(line)}")
            except _OutOfTime:
                found.cut_files.append(ws.display(path))
            found.files += hit
    return found


def _budget_notes(found: _Found, budgets: tuple[float, float]) -> str:
    notes = ""
    if found.cut_files:
        names = ", ".join(found.cut_files[:5]) + (" …" if len(found.cut_files) > 5 else "")
        notes += (f"\n[time budget: {plural(len(found.cut_files), 'file')} searched only in part "
                  f"(over {budgets[0]:g} s each): {names}]")
    if found.out_of_time:
        notes += f"\n[time budget: the search stopped after {budgets[1]:g} s; narrow the path or glob]"
    return notes


async def run(input: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    pattern: str = input["pattern"]
    glob: str | None = input.get("glob")
    raw_path: str | None = input.get("path")
    short = f"grep /{one_line(pattern, 40)}/"
    compiled = compile_pattern(pattern)
    if isinstance(compiled, str):
        return error(compiled, f"{short} (invalid regex)")
    ws = ctx.workspace
    try:
        starts = [ws.resolve(raw_path)] if raw_path is not None else list(ws.roots)
        if not any(s.exists() for s in starts) and not any(ws.live_text(s) is not None for s in starts):
            raise FileNotFoundError(raw_path)
        for named in starts:
            if ws.live_text(named) is None and not (named.is_dir() or named.is_file()):
                raise NotRegularFile(f"{raw_path} is not a regular file (a FIFO, device or socket); not searched")
    except Exception as exc:  # noqa: BLE001
        return error(describe_failure(exc, raw_path or "."), f"{short} (failed)")
    # Buffers are collected here, on the loop: the LSP layer's documents are not thread-safe.
    live = {Path(os.path.realpath(p)): text for p, text in ws.open_documents().items()}
    wanted = glob_matcher(glob) if glob else None
    budgets = (ctx.grep_file_seconds, ctx.grep_total_seconds)
    found = await to_thread_stoppable(_search, ws, starts, compiled, wanted, live, ctx.withheld, ctx.grep_cap,
                                      budgets)

    where = f" in {raw_path}" if raw_path else ""
    where += f" (glob {glob})" if glob else ""
    notes = _budget_notes(found, budgets)
    if found.total == 0:
        return ToolOutput(f"No matches for /{pattern}/{where}.{notes}", False, f"{short} → no matches")
    text = "\n".join(found.lines)
    if found.total > len(found.lines):
        text += f"\n… {found.total - len(found.lines)} more matches (narrow the pattern, glob or path)"
    text += notes
    summary = f"{short} → {plural(found.total, 'match', 'matches')} in {plural(found.files, 'file')}"
    return ToolOutput(text, False, summary)


TOOL = Tool("grep_search", DESCRIPTION, SCHEMA, run)
