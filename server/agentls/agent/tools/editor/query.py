"""The editor's own language intelligence, asked through the client.

The contract (EditorQuery, EditorQueries) is agent/editor_queries.py; the
answers come in LSP's own shapes (URIs, ranges, Location, Diagnostic) and the
tools here turn them into compact `path:line` text for the model.

An answer is the editor's (and its language servers'), so nothing in it is
trusted: an item that does not read (not an object, no string `uri`, a file
URI with a NUL byte) is skipped and counted, at most MAX_ITEMS items are
processed (the rest are counted), and the per-item work (resolving paths,
sorting) runs in a thread: 220,000 locations used to block the event loop
for seconds.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from ...editor_queries import EditorQuery, EditorQueryError
from ...workspace import Workspace
from ..base import ToolContext, ToolOutput, describe_failure, error, split_lines

SEVERITIES = ("error", "warning", "information", "hint")  # LSP DiagnosticSeverity 1..4
SHORT_SEVERITY = {1: "error", 2: "warning", 3: "info", 4: "hint"}
MAX_ITEMS = 10_000  # locations, symbols or diagnostics of one answer processed (README, "Limits")


def uri_of(path: Path) -> str:
    return path.as_uri()


def path_of(uri: Any) -> Path | None:
    """The real local path of a file: URI (None for other schemes, and for one that names no path)."""
    if not isinstance(uri, str):
        return None
    try:
        parsed = urlparse(uri)
        if parsed.scheme != "file":
            return None
        return Path(os.path.realpath(unquote(parsed.path)))
    except (ValueError, OSError):  # a NUL byte (%00), an unreadable URI
        return None


def readable_uri(uri: Any) -> bool:
    """A string URI; a file: one must name a path (no NUL byte)."""
    if not isinstance(uri, str):
        return False
    try:
        parsed = urlparse(uri)
    except ValueError:
        return False
    return parsed.scheme != "file" or "\x00" not in unquote(parsed.path)


def inside(ws: Workspace, uri: Any) -> bool:
    path = path_of(uri)
    return path is not None and ws.root_of(path) is not None


def shown(ws: Workspace, uri: Any) -> str:
    """Workspace-relative path for a file inside the roots, else the absolute path or the URI."""
    path = path_of(uri)
    if path is None:
        return str(uri)
    return ws.display(path) if ws.root_of(path) is not None else str(path)


def start_line(range_: Any) -> tuple[int, int]:
    """(line, character) of a wire Range's start, 0-based; (0, 0) when malformed."""
    try:
        start = range_["start"]
        return int(start["line"]), int(start["character"])
    except (KeyError, TypeError, ValueError):
        return 0, 0


@dataclass
class Found:
    """The usable items of an answer, and what was left out."""

    items: list[dict[str, Any]] = field(default_factory=list)
    skipped: int = 0  # malformed
    listed: int = 0  # how many the editor sent

    def note(self, what: str = "items") -> str:
        """"" or a line saying what was left out."""
        parts = []
        if self.listed > MAX_ITEMS:
            parts.append(f"the editor listed {self.listed:,}; the first {MAX_ITEMS:,} were read")
        if self.skipped:
            parts.append(f"{self.skipped} malformed {what} of the editor's answer "
                         f"{'was' if self.skipped == 1 else 'were'} skipped")
        return f"({'; '.join(parts)})" if parts else ""


def found_items(result: Any, key: str, needs_uri: bool = True) -> Found:
    """The objects under `key` of a result (at most MAX_ITEMS), each with a readable `uri` when asked."""
    value = result.get(key) if isinstance(result, dict) else None
    if not isinstance(value, list):
        return Found()
    found = Found(listed=len(value))
    for item in value[:MAX_ITEMS]:
        if isinstance(item, dict) and (not needs_uri or readable_uri(item.get("uri"))):
            found.items.append(item)
        else:
            found.skipped += 1
    return found


def items(result: Any, key: str) -> list[dict[str, Any]]:
    """The usable objects under `key` of a result (see found_items)."""
    return found_items(result, key, needs_uri=False).items


def one_line(text: str, limit: int = 240) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def capped(lines: list[str], cap: int, hint: str, total: int | None = None) -> list[str]:
    """The first `cap` lines, and how many more there are (`total`: how many in all, when only
    the first lines were formatted)."""
    total = len(lines) if total is None else total
    if total <= cap:
        return lines
    return lines[:cap] + [f"… and {total - cap} more ({hint})"]


async def source_lines(ws: Workspace, locations: list[tuple[str, int]]) -> dict[tuple[str, int], str]:
    """The text of each (uri, line) inside the workspace, read from live buffers or disk."""
    texts: dict[str, list[str] | None] = {}
    found: dict[tuple[str, int], str] = {}
    for uri, line in locations:
        if uri not in texts:
            path = path_of(uri)
            texts[uri] = None
            if path is not None and ws.root_of(path) is not None:
                try:
                    texts[uri] = split_lines(await ws.read_text(path))
                except Exception:  # noqa: BLE001 - a line we cannot show is just left out
                    texts[uri] = None
        lines = texts[uri]
        if lines is not None and 0 <= line < len(lines):
            found[(uri, line)] = one_line(lines[line], 160)
    return found


async def ask(ctx: ToolContext, query: EditorQuery, path: str | None, what: str,
              verb: str) -> tuple[dict[str, Any], str] | ToolOutput:
    """Query the editor, about the workspace file `path` when given: (result, where) or an error result.

    `what` names the query in the failure text ("list symbols"), `verb` in the summary ("Symbols").
    """
    where = "the workspace"
    if path:
        try:
            resolved = ctx.workspace.resolve(path)
        except Exception as exc:  # noqa: BLE001
            return error(describe_failure(exc, path), f"{verb} {path} (failed)")
        query = replace(query, uri=uri_of(resolved))
        where = ctx.workspace.display(resolved)
    try:
        return await ctx.editor.query(query), where
    except EditorQueryError as exc:
        return error(f"The editor could not {what}: {exc}", f"{verb} {where} (failed)")
