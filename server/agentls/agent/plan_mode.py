"""Plan mode: the agent reads and searches, writes a plan to the task list, and acts only once it is approved.

The mode is the conversation's state (session state key MODE), so a restart, a resume and a
compaction keep it. The model learns of a change by an appended message — a `role: "system"`
message where the model takes one, else a text block of the next user message (turn/head.py
`_tell`) — never by a rewrite of `system`, which heads the cached prefix. What the model was last
told is read back from the history itself (the last block that opens with MODE_HEADING), so a
compaction that summarised that block away gets it told again, and one that restated it does not.

In plan mode only the tools in READ_ONLY run (the built-in readers, the task list, the editor's
queries); any other call — a write, an edit, a shell command, an MCP tool (whose effects the
agent cannot know) — is refused without asking anyone. Leaving plan mode ("Approve plan") tells the
model to carry out the plan in its task list.
"""

from __future__ import annotations

from typing import Any

from .tools import ToolOutput
from .tools import editor

ACT, PLAN = "act", "plan"
MODES = (ACT, PLAN)
MODE = "mode"  # session state key: the conversation's mode
MODE_HEADING = "# Agent mode:"  # opens every text the model is told about the mode

# The tools that only read (the editor's tools are queries: definitions, references, diagnostics…), and
# `task`: its subagent is in plan mode too (agent/subagents), so it only reads as well
READ_ONLY = frozenset({"read_file", "list_files", "grep_search", "todo_write", "task", "search_tools", *editor.TOOLS})

PLAN_REASON = "plan mode is on: only reading and searching until the plan is approved"  # on the refused card
NAMES = {ACT: "Act", PLAN: "Plan"}
DESCRIPTIONS = {
    ACT: "Read, edit and run commands under the usual approval settings.",
    PLAN: "Read and search only; write a plan to the task list for the user to approve.",
}

PLAN_TEXT = (f"{MODE_HEADING} plan\n\n"
             "The user turned on plan mode. Until they approve a plan you may only read and search: "
             "read_file, list_files, grep_search and the editor's queries run; write_file, edit_file, run_shell "
             "and MCP tools are refused. Explore what the task needs, then write the plan to the task list with "
             "todo_write (one item per step, all pending) and end your turn with a short summary of it. "
             "Do not start carrying it out.")
ACT_TEXT = (f"{MODE_HEADING} act\n\n"
            "The user left plan mode (approved the plan): every tool is available again under the usual "
            "approval settings. Carry out the plan in the task list, step by step, marking each item as you go.")


class ModeError(ValueError):
    """A mode this agent does not have."""


def checked(mode: Any) -> str:
    if mode not in MODES:
        raise ModeError(f"unknown mode {mode!r}: expected one of {', '.join(MODES)}")
    return str(mode)


def command_mode(argument: str) -> str:
    """The `/plan` command of every front end: `/plan` (or `on`) → plan mode; `/plan off` (or `approve`,
    `act`) → acting on the plan; ModeError for anything else."""
    word = argument.strip().lower()
    if word in ("", "on"):
        return PLAN
    if word in ("off", "approve", "act"):
        return ACT
    raise ModeError(f"/plan takes nothing (plan mode on) or `off` (approve the plan and act on it), not {argument!r}")


def mode_of_state(state: dict[str, Any]) -> str:
    """The mode a session saved (act when it saved none, or one this version does not know)."""
    mode = state.get(MODE)
    return mode if mode in MODES else ACT


def told_text(mode: str) -> str:
    return PLAN_TEXT if mode == PLAN else ACT_TEXT


def last_told(messages: list[dict[str, Any]]) -> str:
    """The mode the history last told the model (act when it told none: acting is the default)."""
    for message in reversed(messages):
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for block in reversed(content):
            text = block.get("text") if isinstance(block, dict) else None
            if isinstance(text, str) and text.startswith(MODE_HEADING):
                return PLAN if text.startswith(f"{MODE_HEADING} plan") else ACT
    return ACT


def refused_in_plan(name: str) -> ToolOutput | None:
    """The refusal of a call plan mode does not allow (None: the tool only reads, it runs)."""
    if name in READ_ONLY:
        return None
    return ToolOutput(f"Not run: plan mode is on, so `{name}` is refused: only reading and searching are "
                      "allowed until the user approves the plan. Do not retry it or work around it; write the "
                      "plan to the task list (todo_write) instead.", True, "refused: plan mode")
