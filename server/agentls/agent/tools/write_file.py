"""write_file: create or overwrite a whole file, after the user approves the diff."""

from __future__ import annotations

from typing import Any

from ..approval import ApprovalRequest, unified_diff
from ..workspace import EditRejected, FileTooLarge, NotTextFile
from .base import Tool, ToolContext, ToolOutput, describe_failure, error, plural, split_lines
from .edit_file import diff_stats
from .editor import after_edit

DESCRIPTION = (
    "Create a file, or replace a file's entire content (parent folders are created). "
    "Prefer edit_file for changes to an existing file. The user approves the diff."
)

SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "Workspace-relative path of the file."},
        "content": {"type": "string", "description": "The complete new content."},
    },
    "required": ["path", "content"],
}


async def run(input: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    raw: str = input["path"]
    content: str = input["content"]
    ws = ctx.workspace
    try:
        path = ws.resolve(raw)
        if await ws.is_dir(path):
            raise IsADirectoryError(raw)
        # Reading first gives the approval diff and refuses to clobber binary files.
        old = await ws.read_text(path) if await ws.exists(path) else None
    except (NotTextFile, FileTooLarge) as exc:
        return error(f"Not overwriting: {exc}", f"Write {raw} (refused)")
    except Exception as exc:  # noqa: BLE001
        return error(describe_failure(exc, raw), f"Write {raw} (failed)")
    shown = ws.display(path)
    if old == content:
        return ToolOutput(f"{shown} already has this content; nothing written.", False, f"Write {shown} (unchanged)")

    diff = unified_diff(old, content, shown)
    if not await ctx.approve(ApprovalRequest(kind="write", path=shown, diff=diff)):
        return error(f"The user did not approve writing {shown}.", f"Write {shown} → not approved")
    errors_before = await after_edit.before(ctx, path)
    try:
        await ws.write_text(path, content)
    except EditRejected as exc:
        return error(f"The editor rejected the edit: {exc.reason}", f"Write {shown} → rejected")
    except Exception as exc:  # noqa: BLE001
        return error(describe_failure(exc, shown), f"Write {shown} (failed)")
    lines = plural(len(split_lines(content)), "line")
    errors = await after_edit.new_errors(ctx, path, errors_before)
    if old is None:
        return ToolOutput(f"Created {shown} ({lines}).{errors}", False, f"Created {shown} ({lines})")
    added, removed = diff_stats(diff)
    return ToolOutput(f"Wrote {shown} ({lines}; -{removed} +{added}).{errors}", False, f"Wrote {shown} ({lines})")


TOOL = Tool("write_file", DESCRIPTION, SCHEMA, run)
