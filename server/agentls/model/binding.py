"""Which models bind thinking to its prefix, and which take mid-conversation system messages and tool changes.

The Models API does not say (its `capabilities` list compaction and context editing, not binding), so
these are the documentation's lists, read 2026-12-04:
- prefix checks ("preserved thinking"): the `supportedModels` of
  https://platform.claude.com/docs/en/build-with-claude/preserved-thinking/prefix-checks (the same list
  heads .../preserved-thinking/fix-bound-to-a-different-conversation): Fable 5.2, Mythos 5.2, Fable 5.1,
  Mythos 5.1, Opus 5.5, Sonnet 5.5, Haiku 5.5. The check starts with Claude Fable 5.1
  (.../preserved-thinking: "Starting with Claude Fable 5.1 …"), and "later models will enforce it for all
  users": a model this table does not know is treated as binding whenever it thinks;
- mid-conversation `role: "system"` messages (no beta header):
  https://platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages — "available on
  Claude Fable 5.1, Claude Mythos 5.1, Claude Fable 5, Claude Mythos 5, Claude Opus 5.5, Claude Opus 4.8,
  Claude Opus 5, and Claude Sonnet 5.5 … not available on Claude Sonnet 5". Claude Haiku 5.5 and the 5.2
  models are not named there, so they are not assumed to take them (a refused message is a 400);
- mid-conversation tool changes (`tool_addition` / `tool_removal`): the same page, "in beta on the same
  models"; `mid-conversation-tool-changes-2026-07-01` covers changes naming a tool by reference, a tool
  defined inside a `tool_addition` needs `inline-tools-2026-09-15`.
A dated snapshot or `-latest` alias of an id is treated like the id.
"""

from __future__ import annotations

BINDING_MODELS = frozenset({
    "claude-fable-5-2", "claude-mythos-5-2", "claude-fable-5-1", "claude-mythos-5-1",
    "claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5",
})
# Models released before the prefix check (it starts with Claude Fable 5.1): their thinking is not bound.
UNBOUND_MODELS = frozenset({
    "claude-fable-5", "claude-mythos-5", "claude-opus-5", "claude-sonnet-5", "claude-opus-4-8",
    "claude-opus-4-7", "claude-opus-4-6", "claude-opus-4-5", "claude-opus-4-1", "claude-opus-4-0", "claude-opus-4",
    "claude-sonnet-4-6", "claude-sonnet-4-5", "claude-sonnet-4-0", "claude-sonnet-4", "claude-3-7-sonnet",
    "claude-haiku-4-5", "claude-3-5-haiku", "claude-3-haiku", "claude-3-opus",
})
SYSTEM_MESSAGE_MODELS = frozenset({
    "claude-fable-5-1", "claude-mythos-5-1", "claude-fable-5", "claude-mythos-5", "claude-opus-5-5",
    "claude-opus-4-8", "claude-opus-5", "claude-sonnet-5-5",
})
TOOL_CHANGE_MODELS = SYSTEM_MESSAGE_MODELS
TOOL_CHANGES_BETA = "mid-conversation-tool-changes-2026-07-01"
INLINE_TOOLS_BETA = "inline-tools-2026-09-15"  # a tool_addition carrying a tool_definition
SYSTEM_CLEAR_AT_BETA = "mid-conversation-system-clear-at-2026-08-21"  # `clear_at` on a system message
BINDING_CONTROLS_BETA = "thinking-binding-controls-2026-08-01"


def base_id(model: str) -> str:
    """`model` without a dated-snapshot (8 digits) or `-latest` suffix, lower case."""
    name = model.lower()
    base, _, suffix = name.rpartition("-")
    if base and (suffix == "latest" or (len(suffix) == 8 and suffix.isdigit())):
        return base
    return name


def thinking_binds(model: str, thinking_on: bool) -> bool:
    """Whether thinking blocks `model` produces are bound to their prefix (documented, or unknown and thinking)."""
    name = base_id(model)
    if name in BINDING_MODELS:
        return True
    if name in UNBOUND_MODELS:
        return False
    return thinking_on


def accepts_system_messages(model: str) -> bool:
    """Whether `model` takes `role: "system"` messages inside `messages` (documented models only)."""
    return base_id(model) in SYSTEM_MESSAGE_MODELS


def accepts_tool_changes(model: str) -> bool:
    """Whether `model` takes `tool_addition` / `tool_removal` blocks (documented models only)."""
    return base_id(model) in TOOL_CHANGE_MODELS
