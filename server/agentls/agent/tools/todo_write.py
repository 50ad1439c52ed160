"""todo_write: the model's task list, replaced whole at each call (agent/todos.py says where it lives)."""

from __future__ import annotations

from typing import Any

from ..todos import parse_todos, progress
from .base import Tool, ToolContext, ToolOutput, error

DESCRIPTION = (
    "Keep a task list for work with several steps: send the whole list each time (it replaces the previous "
    "one). Use it when a task needs three or more steps or the user gives several tasks: write the plan "
    "first, mark one item in_progress before you start it, and mark it completed as soon as it is done "
    "(not in batches). Add items you discover, remove ones that no longer apply. Skip it for a single "
    "simple step. The user sees the list, and it stays in your context even after the conversation is "
    "compacted, so it is where your plan and progress live."
)

SCHEMA = {
    "type": "object",
    "properties": {
        "todos": {
            "type": "array",
            "description": "The complete task list, in order.",
            "items": {
                "type": "object",
                "properties": {
                    "content": {"type": "string", "description": "The task, in a short imperative sentence."},
                    "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]},
                },
                "required": ["content", "status"],
            },
        },
    },
    "required": ["todos"],
}


async def run(input: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    if ctx.todos is None:
        return error("The task list is not available here.", "todo_write (unavailable)")
    try:
        items = parse_todos(input["todos"])
    except ValueError as problem:
        return error(f"The task list was not changed: {problem}.", "todo_write (invalid list)")
    ctx.todos.replace(items)
    if not items:
        return ToolOutput("Task list cleared.", False, "Task list cleared")
    doing = [item.content for item in items if item.status == "in_progress"]
    now = f"; in progress: {doing[0]}" if len(doing) == 1 else f"; {len(doing)} in progress" if doing else ""
    return ToolOutput(f"Task list updated ({progress(items)}{now}).", False, f"Tasks: {progress(items)}{now}")


TOOL = Tool("todo_write", DESCRIPTION, SCHEMA, run)
