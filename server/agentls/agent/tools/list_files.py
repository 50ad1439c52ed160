"""list_files: recursive listing of a folder, minus .gitignored files and .git."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from ..workspace import Workspace
from .base import Tool, ToolContext, ToolOutput, Withheld, describe_failure, error
from .walk import to_thread_stoppable, walk

DEFAULT_ENTRIES = 500
MAX_ENTRIES = 5000

DESCRIPTION = (
    "List files and folders (folders end with '/') recursively, as workspace-relative "
    "paths. Skips .gitignored paths and .git. Optional path limits it to a folder; "
    f"max_entries caps the list (default {DEFAULT_ENTRIES})."
)

SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "Folder to list (default: workspace root)."},
        "max_entries": {"type": "integer", "minimum": 1, "description": "Maximum entries to return."},
    },
    "required": [],
}


def _listing(ws: Workspace, starts: list[Path], limit: int, withheld: Withheld | None, *,
             stop: threading.Event) -> tuple[list[str], int]:
    """Up to `limit` display lines plus the total number of entries."""
    shown: list[str] = []
    total = 0
    for start in starts:
        if len(starts) > 1:  # multi-root: show each root as a folder of its own
            total += 1
            if len(shown) < limit:
                shown.append(ws.display(start) + "/")
        for entry in walk(ws, start, stop):
            if withheld is not None and (withheld(entry.path, entry.is_dir) or
                                         (entry.is_link and withheld(Path(os.path.realpath(entry.path)), False))):
                continue  # a deny rule keeps it from the agent: not even its name
            total += 1
            if len(shown) < limit:
                shown.append(ws.display(entry.path) + ("/" if entry.is_dir else ""))
    return shown, total


async def run(input: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    ws = ctx.workspace
    raw_path: str | None = input.get("path")
    limit = min(input.get("max_entries") or DEFAULT_ENTRIES, MAX_ENTRIES)
    try:
        starts = [ws.resolve(raw_path)] if raw_path is not None else list(ws.roots)
        if len(starts) == 1 and not await ws.is_dir(starts[0]):
            if await ws.exists(starts[0]) and not (ctx.withheld is not None and ctx.withheld(starts[0], False)):
                shown = ws.display(starts[0])
                return ToolOutput(shown, False, f"Listed {shown} (a file)")
            raise FileNotFoundError(raw_path)
    except Exception as exc:  # noqa: BLE001
        return error(describe_failure(exc, raw_path or "."), f"List {raw_path or '.'} (failed)")
    lines, total = await to_thread_stoppable(_listing, ws, starts, limit, ctx.withheld)
    label = raw_path or "."
    if total == 0:
        return ToolOutput(f"{label} is empty (or everything in it is ignored).", False, f"Listed {label} (empty)")
    text = "\n".join(lines)
    if total > len(lines):
        text += f"\n… {total - len(lines)} more entries (list a subfolder or raise max_entries)"
    return ToolOutput(text, False, f"Listed {label} ({total} entries)")


TOOL = Tool("list_files", DESCRIPTION, SCHEMA, run)
