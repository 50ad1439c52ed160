"""Prompt-cache breakpoints for the native Anthropic API (at most 4).

``frontier`` placement (default), for the real cache (context/prompt_cache.py):
  1. the fixed head: the system prompt (the tools before it are cached
     with it, so they need no breakpoint of their own);
  2. the stable frontier, the newest message before which the context
     policy will not rewrite: after a batch of rewrites the request still
     reads everything up to it (the batch's own request also reads the old
     frontier once, in place of 3);
  3. the user message before the last one: where the previous call's tail
     was, read even when the newest exchange added more blocks than the
     API's ~20-block lookback;
  4. the last message: the moving tail, written each call.
``legacy`` placement: the system prompt, the last tool, 3 and 4.

The head and frontier breakpoints carry ``stable_ttl`` ("5m" or "1h"), the
tail ones 5 minutes. Inputs are never mutated: changed messages/blocks are
copied, untouched ones are shared with the input.

A mid-conversation `role: "system"` message follows the user message it belongs to
(https://platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages: "a mid-conversation
system message is itself cacheable"), so the previous call's tail (3.) may be such a message, and a user
message followed by one is not a tail. Its text and tool-change blocks take cache_control (SDK
BetaTextBlockParam, BetaRequestToolAdditionBlockParam / RemovalBlockParam), and so does a `compaction`
block: "cache_control on the block places a breakpoint after the summary"
(https://platform.claude.com/docs/en/build-with-claude/compaction-on-demand; moving cache_control is
binding-safe, the block itself is otherwise sent as returned). A tool declared with `defer_loading` is
not in the cached prefix (https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-use-with-prompt-caching):
it never carries the tools' breakpoint.
"""

from __future__ import annotations

from typing import Any

from ..context.prompt_cache import FIVE_MINUTES, MAX_BREAKPOINTS, can_carry_breakpoint, message_breakpoints


def _without_cache_control(block: Any) -> Any:
    if isinstance(block, dict) and "cache_control" in block:
        return {k: v for k, v in block.items() if k != "cache_control"}
    return block


def _marked(block: dict, ttl: str = FIVE_MINUTES) -> dict:
    marker = {"type": "ephemeral"} if ttl == FIVE_MINUTES else {"type": "ephemeral", "ttl": ttl}
    return {**block, "cache_control": marker}


def _mark_last(blocks: list[Any], ttl: str) -> bool:
    for i in range(len(blocks) - 1, -1, -1):
        if can_carry_breakpoint(blocks[i]):
            blocks[i] = _marked(blocks[i], ttl)
            return True
    return False


def _system_blocks(system: str | list[dict] | None) -> list[dict]:
    if not system:
        return []
    if isinstance(system, str):
        return [{"type": "text", "text": system}]
    return [_without_cache_control(b) for b in system]


def _mark_message(message: dict, ttl: str) -> tuple[dict, bool]:
    """A copy of message with its last cacheable block marked, and whether one was."""
    content = message.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
    if _mark_last(blocks, ttl):
        return {**message, "content": blocks}, True
    return message, False


def _strip_message(message: dict) -> dict:
    content = message.get("content")
    if isinstance(content, list) and any(isinstance(b, dict) and "cache_control" in b for b in content):
        return {**message, "content": [_without_cache_control(b) for b in content]}
    return message


def _turn_roles(messages: list[dict]) -> list[dict]:
    """The roles message_breakpoints places by, with system messages in their place: a system message closes
    the user turn it follows (it is where that turn's request ended), the user message before it does not."""
    roles = [m.get("role") for m in messages]
    shown = []
    for i, role in enumerate(roles):
        if role == "system":
            role = "user"
        elif role == "user" and i + 1 < len(roles) and roles[i + 1] == "system":
            role = "user, continued"
        shown.append({"role": role})
    return shown


def with_cache_breakpoints(
    system: str | list[dict] | None, tools: list[dict] | None, messages: list[dict], *,
    frontier: int | None = None, previous_frontier: int | None = None, placement: str = "frontier",
    stable_ttl: str = FIVE_MINUTES,
) -> tuple[list[dict], list[dict], list[dict]]:
    """Copies of (system as blocks, tools, messages) carrying cache_control breakpoints.

    Any cache_control already present in the inputs is removed first, so the
    total never exceeds the API's limit of 4.
    """
    system_blocks = _system_blocks(system)
    new_tools = [_without_cache_control(t) for t in tools or []]
    used = int(_mark_last(system_blocks, stable_ttl))
    # Deferred tools (`defer_loading`) are not part of the cached prefix (tool-use-with-prompt-caching docs):
    # the tools' breakpoint goes on the last one that is.
    in_prefix = [i for i, tool in enumerate(new_tools) if not tool.get("defer_loading")]
    if in_prefix and (placement == "legacy" or not used):
        new_tools[in_prefix[-1]] = _marked(new_tools[in_prefix[-1]], stable_ttl)
        used += 1
    new_messages = [_strip_message(m) for m in messages]
    stable_upto = frontier if placement == "frontier" and frontier is not None else -1
    for index in message_breakpoints(_turn_roles(new_messages), frontier, placement, previous_frontier):
        if used >= MAX_BREAKPOINTS:
            break
        ttl = stable_ttl if index <= stable_upto else FIVE_MINUTES
        new_messages[index], marked = _mark_message(new_messages[index], ttl)
        used += marked
    return system_blocks, new_tools, new_messages
