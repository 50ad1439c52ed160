"""A conversation's fixed head: the `system` and `tools` its first request sent, and what the model was told since.

On a model that binds thinking to its prefix, or takes mid-conversation system messages, the head
stays byte for byte what the first request sent (prompt cache and every thinking block keep their
prefix); later changes are appended to the conversation instead. The head is saved with the session
(state key HEAD, once; TOLD after each appended change), so a restart, a resume or a fork sends it
unchanged. A compaction ends it: the next request fixes a new head.

Tool changes follow https://platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages
("Mid-conversation tool changes") and the SDK's BetaRequestToolAdditionBlockParam /
BetaRequestToolRemovalBlockParam: a new tool is defined by value (`tool_definition`: the same object a
`tools` entry holds), so `tools` itself never changes; a removal names the tool (`tool_reference`),
which may be one declared in `tools` or one added earlier in `messages`.

The approval modes and permission rules are not part of the head; with a fixed head a change of them is
told like an instruction change (`permissions_text` is what the model is told).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

HEAD = "head"  # session state: {"system", "tools"} as the conversation's first request sent them
TOLD = "head_told"  # session state: {"instructions", "tools"} as the model was last told them


@dataclass
class FixedHead:
    system: str
    tools: list[dict[str, Any]]
    instructions: dict[str, str]  # instruction files (shown name → text) as the model was last told them
    told_tools: list[dict[str, Any]]  # the tools as the model was last told them (head, then tool changes)
    permissions: str = ""  # the approval modes and rules as the model was last told them (permissions_text)

    def head_state(self) -> dict[str, Any]:
        return {HEAD: {"system": self.system, "tools": self.tools}}

    def told_state(self) -> dict[str, Any]:
        return {TOLD: {"instructions": self.instructions, "tools": self.told_tools, "permissions": self.permissions}}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> FixedHead | None:
        """The head a session saved (None when it has none, or not in a readable form)."""
        head, told = state.get(HEAD), state.get(TOLD)
        if not isinstance(head, dict) or not isinstance(head.get("system"), str) \
                or not _tool_list(head.get("tools")):
            return None
        fixed = cls(head["system"], head["tools"], {}, head["tools"])
        if isinstance(told, dict) and _tool_list(told.get("tools")) and isinstance(told.get("instructions"), dict):
            fixed.instructions = {str(k): str(v) for k, v in told["instructions"].items()}
            fixed.told_tools = told["tools"]
            fixed.permissions = told["permissions"] if isinstance(told.get("permissions"), str) else ""
        return fixed


PERMISSIONS_HEADING = "# Permission settings changed"
MODE_WORDS = {"ask": "the user is asked", "always": "allowed without asking", "never": "refused"}
KIND_WORDS = {"shell": "shell commands", "write": "file writes", "edit": "file edits"}


def permissions_text(modes: dict[str, str], rules: list[tuple[str, str, str]]) -> str:
    """The approval modes (kind → mode) and the permission rules ((decision, rule, where written)) in force,
    as the model is told them when they change."""
    lines = [PERMISSIONS_HEADING, "", "The user's approval settings are now:"]
    lines += [f"- {KIND_WORDS.get(kind, kind)}: {MODE_WORDS.get(mode, mode)}" for kind, mode in sorted(modes.items())]
    if rules:
        lines += ["", "Permission rules (deny, then ask, then allow: the strongest that matches decides):"]
        lines += [f"- {decision} {text} ({where})" for decision, text, where in rules]
    lines += ["", "A call these settings refuse is refused: do not work around it, ask the user instead."]
    return "\n".join(lines)


def _tool_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(t, dict) and isinstance(t.get("name"), str) for t in value)


def _key(tool: dict[str, Any]) -> str:
    return json.dumps(tool, sort_keys=True)


def tool_changes(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """(added, removed) tool names between two tool lists (a changed definition counts as both)."""
    old = {_key(t): t["name"] for t in before}
    new = {_key(t): t["name"] for t in after}
    return sorted(new[k] for k in new.keys() - old.keys()), sorted(old[k] for k in old.keys() - new.keys())


def tool_change_blocks(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The `tool_removal` then `tool_addition` blocks that take the model from `before` to `after` (a changed
    definition is removed, then added by value)."""
    old, new = {_key(t) for t in before}, {_key(t) for t in after}
    removed = [t["name"] for t in before if _key(t) not in new]
    added = [t for t in after if _key(t) not in old]
    return ([{"type": "tool_removal", "tool": {"type": "tool_reference", "name": name}} for name in removed]
            + [{"type": "tool_addition", "tool": {"type": "tool_definition", "definition": tool}} for tool in added])
