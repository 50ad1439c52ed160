"""The agent's tools and their registry.

Each tool lives in its own module as a `Tool` (Anthropic definition + async
`run`). `run_tool` is the one entry point the turn loop uses: it checks the
input against the schema and turns every failure into an `is_error`
`ToolOutput`, so a tool call never raises, except for cancellation.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from . import editor, edit_file, grep_search, list_files, read_file, run_shell, todo_write, write_file
from ..visible import excerpt
from .base import ResultStore, Tool, ToolContext, ToolOutput, check_input, error

TOOLS: dict[str, Tool] = {
    module.TOOL.name: module.TOOL
    for module in (read_file, grep_search, list_files, edit_file, write_file, run_shell, todo_write)
}


def tool_definitions(editor_kinds: Iterable[str] = ()) -> list[dict[str, Any]]:
    """Anthropic tool definitions, in a stable order (it is part of the prompt cache key).

    Editor tools come last, only for the query kinds the client answers.
    """
    return [tool.definition for tool in [*TOOLS.values(), *editor.offered(editor_kinds)]]


def _find(name: str, ctx: ToolContext) -> Tool | None:
    if name in TOOLS:
        return TOOLS[name]
    if ctx.editor is not None and editor.TOOLS.get(name) in editor.offered(ctx.editor.kinds):
        return editor.TOOLS[name]
    return None


async def run_tool(name: str, input: Any, ctx: ToolContext) -> ToolOutput:
    tool = _find(name, ctx)
    if tool is None:
        shown = excerpt(name)  # the model's own text: quoted cut
        return error(f"Unknown tool {shown}; available: {', '.join(TOOLS)}.", f"{shown} (unknown tool)")
    problem = check_input(tool.input_schema, input)
    if problem is not None:
        return error(f"Invalid input for {name}: {problem}.", f"{name} (invalid input)")
    try:
        return await tool.run(input, ctx)
    except Exception as exc:  # noqa: BLE001 - last line of defence; CancelledError passes through
        return error(f"{name} failed unexpectedly: {type(exc).__name__}: {exc}", f"{name} (internal error)")


__all__ = ["TOOLS", "ResultStore", "Tool", "ToolContext", "ToolOutput", "run_tool", "tool_definitions"]
