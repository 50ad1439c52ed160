"""The editor's own language intelligence, asked through the client.

The contract (EditorQuery, EditorQueries) is agent/editor_queries.py; the
answers come in LSP's own shapes (URIs, ranges, Location, Diagnostic) and the
tools here turn them into compact `path:line` text for the model.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from ...editor_queries import EditorQuery, EditorQueryError
from ...workspace import Workspace
from ..base import ToolContext, ToolOutput, describe_failure, error, split_lines

SEVERITIES = ("error", "warning", "information", "hint")  # LSP DiagnosticSeverity 1..4
SHORT_SEVERITY = {1: "error", 2: "warning", 3: "info", 4: "hint"}


def uri_of(path: Path) -> str:
    return path.as_uri()


def path_of(uri: Any) -> Path | None:
    """The real local path of a file: URI (None for other schemes)."""
    if not isinstance(uri, str):
        return None
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(os.path.realpath(unquote(parsed.path)))


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


def items(result: Any, key: str) -> list[dict[str, Any]]:
    """The list under `key` of a result, keeping only objects."""
    value = result.get(key) if isinstance(result, dict) else None
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def one_line(text: str, limit: int = 240) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def capped(lines: list[str], cap: int, hint: str) -> list[str]:
    if len(lines) <= cap:
        return lines
    return lines[:cap] + [f"… and {len(lines) - cap} more ({hint})"]


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
