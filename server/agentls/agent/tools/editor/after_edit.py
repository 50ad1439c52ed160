"""After an edit lands in an open editor buffer: which errors did it add?

`before()` takes the file's errors just before the change; `new_errors()`
asks again, letting the client wait (bounded by the `diagnosticsWaitMs`
setting) until the file's diagnostics change after that snapshot and
settle, and reports the errors that were not there before. Errors are
compared by what they say, not where: an edit shifts the lines below it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base import ToolContext, plural
from .diagnostics import diagnostic_line
from ...editor_queries import EditorQuery, EditorQueryError
from .query import items, uri_of

SHOWN = 10


@dataclass(frozen=True)
class Snapshot:
    uri: str
    errors: list[dict[str, Any]]
    generation: int | None


def _identity(item: dict[str, Any]) -> tuple[str, str, str]:
    return str(item.get("message", "")), str(item.get("code", "")), str(item.get("source", ""))


async def before(ctx: ToolContext, path: Path) -> Snapshot | None:
    editor = ctx.editor
    if editor is None or "diagnostics" not in editor.kinds or editor.diagnostics_wait <= 0:
        return None
    uri = uri_of(path)
    try:
        result = await editor.query(EditorQuery("diagnostics", uri, severity="error"))
    except EditorQueryError:
        return None
    generation = result.get("generation")
    return Snapshot(uri, items(result, "diagnostics"), generation if isinstance(generation, int) else None)


async def new_errors(ctx: ToolContext, path: Path, snapshot: Snapshot | None) -> str:
    """Text to append to the tool result ("" when there is nothing to say)."""
    if snapshot is None or ctx.editor is None or ctx.workspace.live_text(path) is None:
        return ""  # only documents open in the editor get fresh diagnostics
    query = EditorQuery("diagnostics", snapshot.uri, severity="error", changed_since=snapshot.generation,
                        wait_ms=round(ctx.editor.diagnostics_wait * 1000))
    try:
        result = await ctx.editor.query(query)
    except EditorQueryError as exc:
        return f"\n(The editor's diagnostics are unavailable: {exc})"
    after = items(result, "diagnostics")
    old = Counter(_identity(item) for item in snapshot.errors)
    added = []
    for item in after:
        if old[_identity(item)] > 0:
            old[_identity(item)] -= 1
        else:
            added.append(item)
    generation = result.get("generation")
    settled = snapshot.generation is None or (isinstance(generation, int) and generation > snapshot.generation)
    if not added:
        remaining = f"; {plural(len(after), 'error')} already there" if after else ""
        waited = "" if settled else f" (its diagnostics did not change within {ctx.editor.diagnostics_wait:g}s)"
        return f"\nApplied; no new errors in this file{remaining}{waited}."
    lines = [diagnostic_line(ctx, item) for item in added[:SHOWN]]
    if len(added) > SHOWN:
        lines.append(f"… and {len(added) - SHOWN} more (get_diagnostics lists them all)")
    return f"\nApplied; {plural(len(added), 'new error')}:\n" + "\n".join(lines)
