"""read_file: a text file (or a stored `context://` result) with line numbers."""

from __future__ import annotations

from typing import Any

from .base import Tool, ToolContext, ToolOutput, describe_failure, error, split_lines

CONTEXT_SCHEME = "context://"
# One minified line must not flood the context; longer lines are cut.
LINE_CAP = 2000

DESCRIPTION = (
    "Read a UTF-8 text file in the workspace, shown with 1-based line numbers. "
    "Use start_line/end_line (inclusive) for a part of a large file. "
    "A path starting with context:// re-reads a stored earlier tool result in full."
)

SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "Workspace-relative path, or a context:// ref."},
        "start_line": {"type": "integer", "minimum": 1, "description": "First line (1-based)."},
        "end_line": {"type": "integer", "minimum": 1, "description": "Last line (inclusive)."},
    },
    "required": ["path"],
}


def _select(lines: list[str], start: int | None, end: int | None) -> tuple[int, int] | str:
    """(first, last) 1-based inclusive bounds, or an error message."""
    total = len(lines)
    first = start or 1
    last = min(end or total, total)
    if end is not None and start is not None and end < start:
        return f"end_line ({end}) is before start_line ({start})"
    if first > total:
        return f"start_line {first} is past the end of the file ({total} lines)"
    return first, last


def _numbered(lines: list[str], first: int, last: int, cap: int) -> tuple[str, int]:
    """Numbered lines `first..last`, stopping before `cap` characters; returns (text, last shown)."""
    out: list[str] = []
    size = 0
    shown = first - 1
    for n in range(first, last + 1):
        line = lines[n - 1]
        if len(line) > LINE_CAP:
            line = f"{line[:LINE_CAP]}… [{len(line) - LINE_CAP} more chars on this line]"
        row = f"{n:>5}\t{line}"
        if size + len(row) + 1 > cap and out:
            break
        out.append(row)
        size += len(row) + 1
        shown = n
    return "\n".join(out), shown


async def _read_stored(ref: str, start: int | None, end: int | None, ctx: ToolContext) -> ToolOutput:
    text = ctx.store.get(ref) if ctx.store is not None else None
    if text is None:
        return error(f"Unknown reference {ref}: no stored result has that id.", f"Read {ref} (unknown)")
    if start is None and end is None:
        return ToolOutput(text, False, f"Read {ref} ({len(text)} chars)")
    lines = split_lines(text)
    bounds = _select(lines, start, end)
    if isinstance(bounds, str):
        return error(bounds, f"Read {ref} (bad range)")
    first, last = bounds
    return ToolOutput("\n".join(lines[first - 1 : last]), False, f"Read {ref}:{first}-{last}")


async def run(input: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    raw = input["path"]
    start, end = input.get("start_line"), input.get("end_line")
    if raw.startswith(CONTEXT_SCHEME):
        return await _read_stored(raw, start, end, ctx)
    try:
        path = ctx.workspace.resolve(raw)
        text = await ctx.workspace.read_text(path)
    except Exception as exc:  # noqa: BLE001 - every failure becomes a readable result
        return error(describe_failure(exc, raw), f"Read {raw} (failed)")
    shown = ctx.workspace.display(path)
    lines = split_lines(text)
    if not lines:
        return ToolOutput(f"{shown} is empty.", False, f"Read {shown} (empty)")
    bounds = _select(lines, start, end)
    if isinstance(bounds, str):
        return error(bounds, f"Read {shown} (bad range)")
    first, last = bounds
    body, shown_last = _numbered(lines, first, last, ctx.output_cap)
    if shown_last < last:
        body += f"\n… output capped at line {shown_last} of {last}; read on with start_line={shown_last + 1}"
    whole = first == 1 and last == len(lines)
    summary = f"Read {shown} ({len(lines)} lines)" if whole else f"Read {shown}:{first}-{shown_last}"
    return ToolOutput(body, False, summary)


TOOL = Tool("read_file", DESCRIPTION, SCHEMA, run)
