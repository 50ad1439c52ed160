"""Mid-conversation `role: "system"` messages and the tool changes inside them, as the API checks them.

Sources (read 2026-12): https://platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages
(placement: never `messages[0]`; right after a `user` message, or an `assistant` message ending in
`server_tool_use`; the last message or followed by an `assistant` message — so never two in a row, never
between a `tool_use` and its `tool_result`; no beta header, on the models the page lists), and the anthropic
SDK's BetaSystemMessageParam, BetaRequestToolAdditionBlockParam, BetaRequestToolRemovalBlockParam (what a
`tool_addition` / `tool_removal` may reference; beta mid-conversation-tool-changes-2026-07-01, inline
definitions only under inline-tools-2026-09-15).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

TOOL_CHANGES_BETA = "mid-conversation-tool-changes-2026-07-01"
INLINE_TOOLS_BETA = "inline-tools-2026-09-15"
# a system message's own fields, each behind a beta (the SDK's AnthropicBetaParam names them)
FIELD_BETAS = {"clear_at": "mid-conversation-system-clear-at-2026-08-21",
               "output_config": "mid-conversation-output-config-2026-07-01"}
TOOL_CHANGE_TYPES = ("tool_addition", "tool_removal")
_SYSTEM_BLOCK_TYPES = ("text", *TOOL_CHANGE_TYPES)


def _blocks(message: dict) -> list[Any]:
    content = message.get("content")
    return content if isinstance(content, list) else []


def _ends_in_server_tool_use(message: dict) -> bool:
    blocks = _blocks(message)
    return bool(blocks) and isinstance(blocks[-1], dict) and blocks[-1].get("type") == "server_tool_use"


def placement_error(messages: list[dict]) -> str | None:
    """The 400 for the first `role: "system"` message placed where the API does not take one."""
    for i, message in enumerate(messages):
        if message.get("role") != "system":
            continue
        if i == 0:
            return ("messages.0.role: the first message cannot use the 'system' role; put instructions for the "
                    "start of the conversation in the top-level `system` parameter")
        previous = messages[i - 1]
        if not (previous.get("role") == "user"
                or (previous.get("role") == "assistant" and _ends_in_server_tool_use(previous))):
            return (f"messages.{i}: a message with role 'system' must follow a 'user' message "
                    "(or an 'assistant' message ending in `server_tool_use`)")
        if i + 1 < len(messages) and messages[i + 1].get("role") != "assistant":
            return (f"messages.{i}: a message with role 'system' must be the last message or be followed by an "
                    "'assistant' message")
        problem = _content_error(i, message)
        if problem:
            return problem
    return None


def _content_error(i: int, message: dict) -> str | None:
    if message.get("clear_at") not in (None, "next_user_message", "never"):
        return f"messages.{i}.clear_at: Input should be 'next_user_message' or 'never'"
    content = message.get("content")
    if isinstance(content, str):
        return None if content else f"messages.{i}.content: a 'system' message must have non-empty content"
    for j, block in enumerate(_blocks(message)):
        if block.get("type") not in _SYSTEM_BLOCK_TYPES:
            return (f"messages.{i}.content.{j}.type: Input should be 'text', 'tool_addition' or 'tool_removal' "
                    "in a 'system' message")
    if not _blocks(message) and not message.get("output_config"):
        return f"messages.{i}.content: a 'system' message must have non-empty content"
    return None


def tool_changes(messages: list[dict]) -> Iterator[tuple[str, dict]]:
    """(path, block) of every tool_addition / tool_removal block, in request order."""
    for i, message in enumerate(messages):
        if message.get("role") != "system":
            continue
        for j, block in enumerate(_blocks(message)):
            if isinstance(block, dict) and block.get("type") in TOOL_CHANGE_TYPES:
                yield f"messages.{i}.content.{j}", block


def system_message_error(body: dict, betas: frozenset[str], model_takes_tool_changes: bool) -> str | None:
    """The 400 for the first system-message field or tool change the request may not send: a missing beta,
    a model without tool changes, or a tool change referencing what it may not."""
    for i, message in enumerate(body.get("messages") or []):
        for name, beta in FIELD_BETAS.items():
            if message.get("role") == "system" and message.get(name) is not None and beta not in betas:
                return f"messages.{i}.{name}: requires the anthropic-beta header {beta}"
    return _tool_change_error(body, betas, model_takes_tool_changes)


def _tool_change_error(body: dict, betas: frozenset[str], model_takes_them: bool) -> str | None:
    declared = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
    toolsets = {t.get("mcp_server_name") for t in body.get("tools") or []
                if isinstance(t, dict) and t.get("type") == "mcp_toolset"}
    inline = INLINE_TOOLS_BETA in betas
    for path, block in tool_changes(body.get("messages") or []):
        kind = block["type"]
        if TOOL_CHANGES_BETA not in betas:
            return f"{path}: `{kind}` blocks require the anthropic-beta header {TOOL_CHANGES_BETA}"
        if not model_takes_them:
            return f"{path}: `{kind}` blocks are not supported on {body.get('model')}"
        problem = _reference_error(path, kind, block.get("tool"), declared, toolsets, inline)
        if problem:
            return problem
        tool = block.get("tool") or {}
        if kind == "tool_addition" and tool.get("type") == "tool_definition":
            declared.add((tool.get("definition") or {}).get("name"))  # later blocks may reference it
    return None


def _reference_error(path: str, kind: str, tool: Any, declared: set, toolsets: set, inline: bool) -> str | None:
    if not isinstance(tool, dict):
        return f"{path}.tool: Field required"
    ref = tool.get("type")
    if ref == "tool_definition":
        if kind == "tool_removal":
            return f"{path}.tool: `tool_removal` takes a reference to a tool, not a `tool_definition`"
        if not inline:
            return f"{path}.tool: a `tool_definition` requires the anthropic-beta header {INLINE_TOOLS_BETA}"
        return None if isinstance(tool.get("definition"), dict) else f"{path}.tool.definition: Field required"
    if ref == "tool_reference":
        if tool.get("name") in declared:
            return None
        return f"{path}.tool: tool '{tool.get('name')}' is not declared in `tools` or by an earlier `tool_addition`"
    if ref in ("mcp_tool_reference", "mcp_toolset_reference"):
        if tool.get("server_name") in toolsets:
            return None
        return f"{path}.tool: MCP server '{tool.get('server_name')}' has no `mcp_toolset` in `tools`"
    return (f"{path}.tool.type: Input should be 'tool_reference', 'mcp_tool_reference', 'mcp_toolset_reference' "
            "or 'tool_definition'")


def shown(messages: list[dict]) -> list[dict]:
    """The messages the model is shown: a system message with `clear_at: "next_user_message"` stays in the
    array but is no longer shown (nor counted) once a later user message exists (BetaSystemMessageParam)."""
    later_user = [any(m.get("role") == "user" for m in messages[i + 1:]) for i in range(len(messages))]
    return [m for i, m in enumerate(messages)
            if not (m.get("role") == "system" and m.get("clear_at") == "next_user_message" and later_user[i])]
