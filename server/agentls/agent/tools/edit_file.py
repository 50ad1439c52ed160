"""edit_file: replace one exact occurrence of a text, after the user approves the diff."""

from __future__ import annotations

from typing import Any

from ..approval import ApprovalRequest, unified_diff
from ..workspace import EditRejected
from .editor import after_edit
from .base import Tool, ToolContext, ToolOutput, describe_failure, error

DESCRIPTION = (
    "Replace old_text with new_text in a file. old_text must match the file exactly "
    "(whitespace and indentation included) and occur exactly once; include enough "
    "surrounding lines to make it unique. The user approves the diff."
)

SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "Workspace-relative path of the file."},
        "old_text": {"type": "string", "description": "Exact text to replace (must be unique in the file)."},
        "new_text": {"type": "string", "description": "Replacement text."},
    },
    "required": ["path", "old_text", "new_text"],
}


def occurrences(text: str, sub: str) -> int:
    """Count matches including overlapping ones: 'aa' is ambiguous in 'aaa'."""
    count, at = 0, text.find(sub)
    while at != -1:
        count += 1
        at = text.find(sub, at + 1)
    return count


def diff_stats(diff: str) -> tuple[int, int]:
    """(added, removed) line counts of a unified diff."""
    lines = diff.splitlines()
    added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
    return added, removed


def _match_line_endings(text: str, old: str, new: str) -> tuple[str, str]:
    """The model writes LF; a CRLF file would never match. Adapt both texts."""
    if "\r\n" in text and "\r\n" not in old and "\n" in old:
        crlf_old = old.replace("\n", "\r\n")
        if crlf_old in text:
            return crlf_old, new.replace("\r\n", "\n").replace("\n", "\r\n")
    return old, new


async def run(input: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    raw: str = input["path"]
    old: str = input["old_text"]
    new: str = input["new_text"]
    if old == "":
        return error("old_text is empty. To create or replace a whole file use write_file.",
                     f"Edit {raw} (empty old_text)")
    if old == new:
        return error("old_text and new_text are identical; nothing to change.", f"Edit {raw} (no change)")
    ws = ctx.workspace
    try:
        path = ws.resolve(raw)
        text = await ws.read_text(path)
    except Exception as exc:  # noqa: BLE001
        return error(describe_failure(exc, raw), f"Edit {raw} (failed)")
    shown = ws.display(path)

    old, new = _match_line_endings(text, old, new)
    found = occurrences(text, old)
    if found == 0:
        return error(
            f"old_text was not found in {shown}. It must match exactly, including whitespace and "
            "indentation; re-read the file with read_file and copy the text from it.",
            f"Edit {shown} (no match)",
        )
    if found > 1:
        return error(
            f"old_text matches {found} places in {shown}; include more surrounding lines so it "
            "matches exactly once.",
            f"Edit {shown} ({found} matches)",
        )

    new_full = text.replace(old, new, 1)
    diff = unified_diff(text, new_full, shown)
    if not await ctx.approve(ApprovalRequest(kind="edit", path=shown, diff=diff)):
        return error(f"The user did not approve editing {shown}.", f"Edit {shown} → not approved")
    errors_before = await after_edit.before(ctx, path)
    try:
        await ws.apply_text_edit(path, old, new, new_full)
    except EditRejected as exc:
        return error(f"The editor rejected the edit: {exc.reason}", f"Edit {shown} → rejected")
    except Exception as exc:  # noqa: BLE001
        return error(describe_failure(exc, shown), f"Edit {shown} (failed)")
    added, removed = diff_stats(diff)
    line = text[: text.index(old)].count("\n") + 1
    return ToolOutput(
        f"Edited {shown} at line {line}: -{removed} +{added} lines."
        + await after_edit.new_errors(ctx, path, errors_before),
        False,
        f"Edited {shown} (+{added} −{removed})",
    )


TOOL = Tool("edit_file", DESCRIPTION, SCHEMA, run)
