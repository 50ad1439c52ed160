"""find_symbols: classes, functions… by name across the workspace, or the outline of one file."""

from __future__ import annotations

import asyncio
from typing import Any

from ..base import Tool, ToolContext, ToolOutput, error, plural
from ...editor_queries import EditorQuery
from .query import ask, capped, found_items, shown, start_line

CAP = 100
DESCRIPTION = (
    "Find symbols (classes, functions, methods, variables…) with the editor's language servers. "
    "With query: symbols whose name matches, across the workspace. With path: the outline of that file "
    "(filtered by query when given). Results are path:line kind name."
)
SCHEMA = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "Name (or part of it) to look for."},
        "path": {"type": "string", "description": "Workspace-relative file whose outline to list."},
    },
}


def rank(symbol: dict[str, Any], query: str) -> int:
    """Exact names first, then prefixes, then the editor's fuzzy matches."""
    name = str(symbol.get("name", ""))
    if not query:
        return 0
    if name == query:
        return 0
    if name.lower() == query.lower():
        return 1
    return 2 if name.lower().startswith(query.lower()) else 3


def symbol_line(ctx: ToolContext, symbol: dict[str, Any]) -> str:
    line, _ = start_line(symbol.get("range"))
    container = symbol.get("containerName")
    name = f"{container}.{symbol.get('name', '')}" if container else str(symbol.get("name", ""))
    kind = str(symbol.get("kind", "symbol")).lower()
    return f"{shown(ctx.workspace, symbol.get('uri'))}:{line + 1} {kind} {name}"


async def run(input: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    query = (input.get("query") or "").strip()
    raw = input.get("path")
    if not query and not raw:
        return error("Give a query (a symbol name) or a path (a file to outline).", "Symbols (no query)")
    answer = await ask(ctx, EditorQuery("symbols", query=query), raw, "list symbols", "Symbols")
    if isinstance(answer, ToolOutput):
        return answer
    result, where = answer
    answered = found_items(result, "symbols")
    note = [answered.note("symbols")] if answered.note() else []

    def sorted_lines() -> tuple[int, list[str]]:  # per-item path work: in a thread
        found = answered.items
        if raw and query:  # an outline comes whole; keep what matches
            found = [s for s in found if query.lower() in str(s.get("name", "")).lower()]
        found.sort(key=lambda s: (rank(s, query), str(s.get("uri", "")), start_line(s.get("range"))))
        return len(found), [symbol_line(ctx, s) for s in found[:CAP]]

    total, lines = await asyncio.to_thread(sorted_lines)
    label = f"{query!r} in {where}" if query else where
    if not total:
        return ToolOutput("\n".join([f"No symbols matching {label}.", *note]), False, f"Symbols {label}: none")
    count = plural(total, "symbol")
    text = "\n".join([f"{count} for {label}:", *capped(lines, CAP, "refine the query", total), *note])
    return ToolOutput(text, False, f"Symbols {label}: {count}")


TOOL = Tool("find_symbols", DESCRIPTION, SCHEMA, run)
