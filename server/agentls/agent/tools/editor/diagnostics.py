"""get_diagnostics: the editor's problems (errors, warnings…) for a file or the whole workspace."""

from __future__ import annotations

import asyncio
from typing import Any

from ..base import Tool, ToolContext, ToolOutput, error, plural
from ...editor_queries import EditorQuery
from .query import SEVERITIES, SHORT_SEVERITY, ask, capped, found_items, inside, one_line, shown, start_line

CAP = 150
DESCRIPTION = (
    "Problems the editor's language servers report (type errors, lint warnings…), as path:line:col. "
    "Give a path for one file, or none for the whole workspace. Cheaper and fresher than running a compiler."
)
SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "Workspace-relative file; omit for the whole workspace."},
        "severity": {"type": "string", "enum": list(SEVERITIES),
                     "description": "Minimum severity to list (default: warning)."},
    },
}


def diagnostic_line(ctx: ToolContext, item: dict[str, Any]) -> str:
    """`src/a.ts:3:7 error ts(2322): message` (1-based line and column)."""
    line, column = start_line(item.get("range"))
    severity = severity_name(item)
    source, code = item.get("source"), item.get("code")
    origin = f"{source or ''}({code})" if code not in (None, "") else (source or "")
    label = f"{severity} {origin}".strip()
    return f"{shown(ctx.workspace, item.get('uri'))}:{line + 1}:{column + 1} {label}: {one_line(item.get('message', ''))}"


def severity_name(item: dict[str, Any]) -> str:
    value = item.get("severity")
    return SHORT_SEVERITY.get(value, "error") if isinstance(value, int) else "error"


def sort_key(item: dict[str, Any]) -> tuple[str, int, int]:
    line, column = start_line(item.get("range"))
    return str(item.get("uri", "")), line, column


async def run(input: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    raw = input.get("path")
    severity = input.get("severity") or "warning"
    if severity not in SEVERITIES:
        return error(f"severity must be one of {', '.join(SEVERITIES)}.", "Diagnostics (bad severity)")
    answer = await ask(ctx, EditorQuery("diagnostics", severity=severity), raw, "report diagnostics", "Diagnostics")
    if isinstance(answer, ToolOutput):
        return answer
    result, where = answer
    answered = found_items(result, "diagnostics")
    note = [answered.note("diagnostics")] if answered.note() else []

    def sorted_lines() -> tuple[list[dict[str, Any]], list[str]]:  # per-item path work: in a thread
        found = sorted(answered.items, key=sort_key)
        if not raw:  # the workspace's: problems of files outside it are not the model's business
            found = [d for d in found if inside(ctx.workspace, d.get("uri"))]
        return found, [diagnostic_line(ctx, d) for d in found[:CAP]]

    found, lines = await asyncio.to_thread(sorted_lines)
    if not found:
        text = "\n".join([f"No problems (severity {severity} or worse) in {where}.", *note])
        return ToolOutput(text, False, f"Diagnostics {where}: none")
    counts = [plural(sum(1 for d in found if severity_name(d) == name), name)
              for name in ("error", "warning", "info", "hint")]
    summary = ", ".join(c for c in counts if not c.startswith("0 "))
    text = "\n".join([f"{summary} in {where}:", *capped(lines, CAP, "give a path or a higher severity", len(found)),
                      *note])
    return ToolOutput(text, False, f"Diagnostics {where}: {summary}")


TOOL = Tool("get_diagnostics", DESCRIPTION, SCHEMA, run)
