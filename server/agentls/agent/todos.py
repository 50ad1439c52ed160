"""The task list the model keeps with `todo_write`: the whole list each call.

Where the list lives (chosen for the prompt cache):
- between compactions, in the history itself: each `todo_write` call's input
  is the list, appended like any tool call, so updating it never rewrites the
  cached prompt (a list in the system prompt would break the cache at every
  update). Its inputs are never cleared and its short results never snipped
  (ContextConfig.kept_input_tools, protected_tools), so the newest list is
  always in the request verbatim;
- at a compaction, which rewrites the history and starts the cache over
  anyway, the current list is pinned into the summary message verbatim
  (ContextEngine.pinned), so the list survives even when the todo_write call
  itself is summarised away;
- with the session (a `state` record), so a restart or a resumed session
  has it, and front ends show it (the `TodosChanged` event, `Agent.todos()`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

STATUSES = ("pending", "in_progress", "completed")
MAX_ITEMS = 100
MAX_CONTENT = 500  # characters of one item
_MARKS = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}


@dataclass(frozen=True)
class TodoItem:
    content: str
    status: str  # one of STATUSES


def parse_todos(raw: Any) -> tuple[TodoItem, ...]:
    """A todo_write input's list, checked; ValueError names the first bad item."""
    if not isinstance(raw, list):
        raise ValueError("todos must be an array of {content, status} objects")
    if len(raw) > MAX_ITEMS:
        raise ValueError(f"todos has {len(raw)} items; at most {MAX_ITEMS}")
    items = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict):
            raise ValueError(f"todos[{index}] must be an object with content and status")
        content, status = item.get("content"), item.get("status")
        if not isinstance(content, str) or not content.strip():
            raise ValueError(f"todos[{index}].content must be a non-empty string")
        if len(content) > MAX_CONTENT:
            raise ValueError(f"todos[{index}].content has {len(content)} characters; at most {MAX_CONTENT}")
        if status not in STATUSES:
            raise ValueError(f"todos[{index}].status must be one of {', '.join(STATUSES)}")
        items.append(TodoItem(" ".join(content.split()), status))
    return tuple(items)


def todos_from_state(raw: Any) -> tuple[TodoItem, ...]:
    """The list a saved session holds (nothing when it does not read)."""
    try:
        return parse_todos(raw)
    except ValueError:
        return ()


def as_state(items: tuple[TodoItem, ...]) -> list[dict[str, str]]:
    return [{"content": item.content, "status": item.status} for item in items]


def progress(items: tuple[TodoItem, ...]) -> str:
    done = sum(item.status == "completed" for item in items)
    return f"{done}/{len(items)} done"


def render(items: tuple[TodoItem, ...]) -> str:
    """The list as the model reads it after a compaction (and as the terminal prints it)."""
    if not items:
        return ""
    rows = "\n".join(f"- {_MARKS[item.status]} {item.content}" for item in items)
    return (f"Task list ({progress(items)}; [x] completed, [~] in progress, [ ] pending), as you last wrote it "
            f"with todo_write — keep it current with todo_write:\n{rows}")


class TodoList:
    """The agent's current list; the todo_write tool replaces it whole."""

    def __init__(self, items: tuple[TodoItem, ...] = ()) -> None:
        self.items = items
        self.version = 0  # bumped at every write: the loop reports and saves a change once

    def replace(self, items: tuple[TodoItem, ...]) -> None:
        self.items = items
        self.version += 1
