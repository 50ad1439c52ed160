"""What the history knows of one tool call: its input, where its call and result stand, what became of it.

And the key that makes two calls the same (the tool and its target: a path, a command, a search), by which
a later call supersedes an earlier one (superseded.py, snip.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class ToolRecord:
    id: str
    name: str
    input: dict[str, Any]
    key: str | None  # dedup key: (tool, path-or-command) as one string
    use_msg: int  # index of the assistant message holding the tool_use
    result_msg: int | None = None  # index of the user message holding the tool_result
    seq: int = -1  # arrival order of the result
    chars: int = 0  # chars of the result as it now stands in the history
    arrived_chars: int = 0  # chars when it entered (after L0)
    original_chars: int = 0  # chars before L0
    state: str = ""  # "", "truncated", "budgeted", "snipped", "cleared"
    rewritten: bool = False  # sticky: a result is rewritten at most once
    input_chars: int = 0
    input_cleared: bool = False
    is_error: bool = False

    @property
    def path_or_command(self) -> str:
        return dedup_target(self.input) or ""


def dedup_target(tool_input: dict[str, Any]) -> str | None:
    for name in ("path", "file_path", "command", "pattern", "url", "query"):
        value = tool_input.get(name)
        if isinstance(value, str) and value:
            if name == "pattern":
                return f"{value} @ {tool_input.get('path', '')} {tool_input.get('glob', '')}"
            return value
    return None


def dedup_key(name: str, tool_input: dict[str, Any]) -> str | None:
    target = dedup_target(tool_input)
    return f"{name}\x00{target}" if target else None
