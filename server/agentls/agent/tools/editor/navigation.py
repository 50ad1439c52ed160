"""go_to_definition / find_references: by path + line + symbol name (models are bad at columns).

The column is found here, in the file's live text: the name as a whole
word on the given line, else on the nearest line within a few lines of it
(a model's line numbers are often off by one or two).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base import Tool, ToolContext, ToolOutput, describe_failure, error, plural, split_lines
from ...editor_queries import EditorQuery, EditorQueryError
from .query import Found, capped, found_items, one_line, shown, source_lines, start_line, uri_of

NEARBY = 5  # lines searched either side when the name is not on the given line
CAP = 100
HOVER_CHARS = 1200

SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "Workspace-relative file where the symbol appears."},
        "line": {"type": "integer", "minimum": 1, "description": "1-based line on which the symbol appears."},
        "symbol": {"type": "string", "description": "The symbol's name as written on that line."},
    },
    "required": ["path", "line", "symbol"],
}


@dataclass(frozen=True)
class Spot:
    path: Path
    shown: str
    line: int  # 0-based
    character: int  # UTF-16 code units, as LSP positions count by default
    note: str  # "" or why the line differs from the one asked for

    def query(self, kind: str) -> EditorQuery:
        return EditorQuery(kind, uri_of(self.path), self.line, self.character)

    @property
    def where(self) -> str:
        return f"{self.shown}:{self.line + 1}"


def column_of(text: str, symbol: str) -> int | None:
    """Code-point offset of `symbol` as a whole word in `text` (a plain substring as a fallback)."""
    match = re.search(rf"(?<![\w$]){re.escape(symbol)}(?![\w$])", text)
    if match:
        return match.start()
    at = text.find(symbol)
    return at if at >= 0 else None


def utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


async def locate(input: dict[str, Any], ctx: ToolContext, verb: str) -> Spot | ToolOutput:
    raw, asked, symbol = input["path"], input["line"] - 1, input["symbol"].strip()
    if not symbol:
        return error("symbol is empty; give the name as written on that line.", f"{verb} (no symbol)")
    try:
        path = ctx.workspace.resolve(raw)
        lines = split_lines(await ctx.workspace.read_text(path))
    except Exception as exc:  # noqa: BLE001
        return error(describe_failure(exc, raw), f"{verb} {raw} (failed)")
    shown_path = ctx.workspace.display(path)
    # the asked line, then the nearest ones, the line above first
    candidates = [asked] + [asked + d * s for d in range(1, NEARBY + 1) for s in (-1, 1)]
    for line in candidates:
        if 0 <= line < len(lines) and (column := column_of(lines[line], symbol)) is not None:
            note = "" if line == asked else f" (found on line {line + 1}, not {asked + 1})"
            return Spot(path, shown_path, line, utf16_units(lines[line][:column]), note)
    if not 0 <= asked < len(lines):
        problem = f"{shown_path} has {plural(len(lines), 'line')}; line {asked + 1} does not exist"
    else:
        problem = f"{symbol!r} is not on line {asked + 1} of {shown_path} (nor within {NEARBY} lines); " \
                  f"line {asked + 1} is: {one_line(lines[asked], 160)}"
    return error(problem + ". Use grep_search or find_symbols to find where it is.", f"{verb} {symbol} (not found)")


@dataclass(frozen=True)
class Listed:
    """Locations as `path:line` lines: the first CAP of them formatted, how many there are, what was left out."""

    lines: list[str]
    total: int
    note: str


async def location_lines(ctx: ToolContext, found: Found) -> Listed:
    """`path:line: source text` per location, sorted, duplicates dropped (source text for those shown)."""

    def sorted_spots() -> list[tuple[str, int, str]]:  # per-item path work: in a thread
        spots = sorted({(str(loc.get("uri", "")), start_line(loc.get("range"))[0]) for loc in found.items})
        return [(uri, line, shown(ctx.workspace, uri)) for uri, line in spots]

    spots = await asyncio.to_thread(sorted_spots)
    texts = await source_lines(ctx.workspace, [(uri, line) for uri, line, _ in spots[:CAP]])
    lines = [f"{where}:{line + 1}" + (f": {texts[(uri, line)]}" if (uri, line) in texts else "")
             for uri, line, where in spots[:CAP]]
    return Listed(lines, len(spots), found.note("locations"))


async def locations_of(input: dict[str, Any], ctx: ToolContext, kind: str, what: str,
                       verb: str) -> tuple[Spot, Listed] | ToolOutput:
    """Find the symbol's column, ask the editor for `kind`, list the answer as path:line lines."""
    spot = await locate(input, ctx, verb)
    if isinstance(spot, ToolOutput):
        return spot
    try:
        result = await ctx.editor.query(spot.query(kind))
    except EditorQueryError as exc:
        return error(f"The editor could not find {what}: {exc}", f"{verb} {input['symbol'].strip()} (failed)")
    return spot, await location_lines(ctx, found_items(result, "locations"))


async def hover_text(ctx: ToolContext, spot: Spot) -> str:
    """The hover (signature, type) at the spot, when the client answers hovers; "" otherwise."""
    if "hover" not in ctx.editor.kinds:
        return ""
    try:
        answer = await ctx.editor.query(spot.query("hover"))
    except EditorQueryError:
        return ""  # the signature is a bonus; the definition stands without it
    text = answer.get("hover") if isinstance(answer, dict) else None
    text = text.strip() if isinstance(text, str) else ""
    return text if len(text) <= HOVER_CHARS else text[:HOVER_CHARS] + "…"


async def definition(input: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    found = await locations_of(input, ctx, "definition", "the definition", "Definition")
    if isinstance(found, ToolOutput):
        return found
    spot, listed = found
    symbol = input["symbol"].strip()
    body = capped(listed.lines, CAP, "too many", listed.total) if listed.total else \
        ["none found (no language server knows a definition here)"]
    body += [listed.note] if listed.note else []
    if info := await hover_text(ctx, spot):
        body.append("Hover:\n" + info)
    head = f"Definition of {symbol} at {spot.where}{spot.note}:"
    return ToolOutput("\n".join([head, *body]), False, f"Definition of {symbol}: {plural(listed.total, 'place')}")


async def references(input: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    found = await locations_of(input, ctx, "references", "references", "References")
    if isinstance(found, ToolOutput):
        return found
    spot, listed = found
    symbol = input["symbol"].strip()
    head = f"{plural(listed.total, 'reference')} to {symbol} (from {spot.where}{spot.note}), declaration included:"
    body = capped(listed.lines, CAP, "too many to list", listed.total) + ([listed.note] if listed.note else [])
    return ToolOutput("\n".join([head, *body]), False, f"References to {symbol}: {listed.total}")


DEFINITION = Tool(
    "go_to_definition",
    "Where a symbol is defined, found by the editor's language servers (with its type/signature when available). "
    "Give the file, the 1-based line and the symbol's name as written there; no column needed.",
    SCHEMA, definition)
REFERENCES = Tool(
    "find_references",
    "Every place a symbol is used, found by the editor's language servers (not a text search: only real "
    "references). Give the file, the 1-based line and the symbol's name as written there; no column needed.",
    SCHEMA, references)
