"""The `task` tool: its definition, its input as the runner reads it, and the tools a child may use.

A `task` call runs a child agent (subagents/child.py) with its own history and window; the
parent gets one tool result, the child's final answer. Read-only tools by default; a write,
an edit, the shell or an MCP tool only when the call lists it in `tools` (and then still
through the user's approvals and rules). `fork: true` starts the child from the parent's
conversation, so its first request reads the parent's cached prefix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...model.models_api import is_model_id
from ..plan_mode import READ_ONLY

TASK = "task"
# How many children of one agent run at once; the others wait their turn (README, "Subagents").
PARALLEL_LIMIT = 4
# The tools a child gets when the call names none: reading and searching (and its own task list).
DEFAULT_TOOLS = READ_ONLY - {TASK}
DESCRIPTION_CHARS = 80  # a description longer than this is cut where the user sees it

DESCRIPTION = (
    "Run a subagent with its own context: it carries out `prompt` and returns only its final answer. Use it for "
    "exploration that would fill your context (searching, reading many files) or for independent work. Calls in "
    f"one reply run in parallel (at most {PARALLEL_LIMIT} at once). It sees none of this conversation unless `fork` "
    "is true: say everything it needs and what to report. Read-only tools unless `tools` lists others (the user is "
    "still asked); its transcript stays readable at the context:// ref its result names."
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "description": {"type": "string", "description": "3-6 words, shown to the user"},
        "prompt": {"type": "string", "description": "The whole task, and what to report"},
        "tools": {"type": "array", "items": {"type": "string"}, "description": "Tool names (default: read-only)"},
        "model": {"type": "string", "description": "Model id (default: yours)"},
        "fork": {"type": "boolean", "description": "Start from this conversation (shares your prompt cache)"},
    },
    "required": ["description", "prompt"],
}


def definition() -> dict[str, Any]:
    """The Anthropic tool definition (a fresh copy: callers may add cache_control)."""
    return {"name": TASK, "description": DESCRIPTION,
            "input_schema": {**SCHEMA, "properties": {k: dict(v) for k, v in SCHEMA["properties"].items()}}}


class TaskInputError(ValueError):
    """A `task` input the runner cannot carry out (told to the model as the call's error)."""


@dataclass(frozen=True)
class TaskInput:
    description: str
    prompt: str
    tools: frozenset[str] | None  # None: the default (read-only) tools
    model: str | None
    fork: bool

    @property
    def name(self) -> str:
        """The description as the user sees it (one line, bounded)."""
        line = " ".join(self.description.split())
        return line if len(line) <= DESCRIPTION_CHARS else line[: DESCRIPTION_CHARS - 1] + "…"


def task_input(raw: Any) -> TaskInput:
    """The checked input of a `task` call; TaskInputError naming the first bad field."""
    if not isinstance(raw, dict):
        raise TaskInputError("input must be a JSON object")
    description, prompt = raw.get("description"), raw.get("prompt")
    if not isinstance(description, str) or not description.strip():
        raise TaskInputError("`description` must be a non-empty string")
    if not isinstance(prompt, str) or not prompt.strip():
        raise TaskInputError("`prompt` must be a non-empty string")
    tools = raw.get("tools")
    if tools is not None and (not isinstance(tools, list) or not all(isinstance(t, str) for t in tools)):
        raise TaskInputError("`tools` must be a list of tool names")
    if tools is not None and TASK in tools:
        raise TaskInputError("a subagent cannot start subagents of its own (`task` in `tools`)")
    model = raw.get("model")
    if model is not None and (not isinstance(model, str) or not is_model_id(model.strip())):
        raise TaskInputError("`model` must be a model id (printable ASCII, no spaces, at most 256 characters)")
    fork = raw.get("fork", False)
    if not isinstance(fork, bool):
        raise TaskInputError("`fork` must be true or false")
    return TaskInput(description, prompt, frozenset(tools) if tools is not None else None,
                     model.strip() if isinstance(model, str) else None, fork)


def allowed(task: TaskInput) -> frozenset[str]:
    """The tool names the child may call."""
    return DEFAULT_TOOLS if task.tools is None else task.tools
