"""Shared types for tools: Tool, ToolContext, ToolOutput, input checking, error text."""

from __future__ import annotations

import copy
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...context.caps import TOOL_OUTPUT_CHARS
from ...context.store import ResultStore
from ..approval import ApprovalCallback
from ..editor_queries import EditorQueries
from ..shell_runner import ShellRunner
from ..todos import TodoList
from ..workspace import Workspace, WorkspaceError, encodable


Withheld = Callable[[Path, bool], bool]  # (path, is a folder) → kept from the call by a deny rule


@dataclass
class ToolContext:
    workspace: Workspace
    approve: ApprovalCallback
    store: ResultStore | None = None
    shell_timeout: float = 120.0
    output_cap: int = TOOL_OUTPUT_CHARS  # context/caps.py: the first of the three caps
    grep_cap: int = 200
    editor: EditorQueries | None = None  # the client answers agent/editorQuery
    grep_file_seconds: float = 5.0  # time budget of one file
    grep_total_seconds: float = 30.0  # and of the whole search
    shell: ShellRunner | None = None  # where run_shell runs commands (None: here, run_shell.run_here)
    todos: TodoList | None = None  # the agent's task list (todo_write replaces it)
    # A file or folder a deny rule keeps from this call (list_files, grep_search): neither its name nor its
    # text is returned. None: no rules (every file the walk finds may be shown).
    withheld: Withheld | None = None


@dataclass(frozen=True)
class ToolOutput:
    text: str
    is_error: bool = False
    summary: str = ""

    def __post_init__(self) -> None:
        # a file name that is not UTF-8 (listed, grepped, printed by a command) must not fail the turn
        object.__setattr__(self, "text", encodable(self.text))
        object.__setattr__(self, "summary", encodable(self.summary))


def error(text: str, summary: str) -> ToolOutput:
    return ToolOutput(text=text, is_error=True, summary=summary)


RunFn = Callable[[dict[str, Any], ToolContext], Awaitable[ToolOutput]]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    input_schema: dict[str, Any]
    run: RunFn = field(repr=False)

    @property
    def definition(self) -> dict[str, Any]:
        """The Anthropic tool definition (a fresh copy: callers may add cache_control)."""
        return copy.deepcopy({"name": self.name, "description": self.description, "input_schema": self.input_schema})


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


def check_input(schema: dict[str, Any], data: Any) -> str | None:
    """A message naming the first bad field, or None. Only what our schemas use."""
    if not isinstance(data, dict):
        return "input must be a JSON object"
    for name in schema.get("required", []):
        if name not in data or data[name] is None:
            return f"missing required field '{name}'"
    for name, prop in schema.get("properties", {}).items():
        value = data.get(name)
        if value is None:
            continue
        expected = _JSON_TYPES.get(prop.get("type", ""), (object,))
        # bool is an int subclass in Python, but not a JSON integer.
        if not isinstance(value, expected) or (isinstance(value, bool) and bool not in expected):
            return f"field '{name}' must be of type {prop['type']}"
        if "minimum" in prop and value < prop["minimum"]:
            return f"field '{name}' must be >= {prop['minimum']}"
    return None


def describe_failure(exc: BaseException, shown: str) -> str:
    """Readable text for the errors tools expect; `shown` is the user's path."""
    if isinstance(exc, WorkspaceError):
        return str(exc)
    if isinstance(exc, FileNotFoundError):
        return f"{shown} does not exist (use list_files to see what is there)"
    if isinstance(exc, IsADirectoryError):
        return f"{shown} is a directory (use list_files)"
    if isinstance(exc, NotADirectoryError):
        return f"{shown}: a parent of this path is a file, not a directory"
    if isinstance(exc, PermissionError):
        return f"{shown}: permission denied"
    if isinstance(exc, OSError):
        return f"{shown}: {exc.strerror or exc}"
    return f"{type(exc).__name__}: {exc}"


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {many or word + 's'}"


def one_line(text: str, limit: int = 60) -> str:
    """First line of `text`, shortened for summaries."""
    lines = text.strip().splitlines()
    first = lines[0] if lines else ""
    if len(first) > limit:
        return first[: limit - 1] + "…"
    return first + " …" if len(lines) > 1 else first


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """Lines as an editor counts them (LF, CRLF, CR).

    str.splitlines also breaks on form feeds and Unicode separators, which
    would shift line numbers against the LSP client's.
    """
    if not text:
        return []
    lines = _LINE_BREAK.split(text)
    if lines[-1] == "":
        lines.pop()  # a final newline ends the last line; it does not start a new one
    return lines
