"""Prompt-cache breakpoints for the native Anthropic API.

Breakpoints (at most 4, the API's limit):
  1. the system prompt,
  2. the last tool definition (tools rarely change, so 1+2 cache the fixed head),
  3. the last block of the last message: the moving tail, written each call,
  4. the last block of the user message before that: where the previous
     call's tail was, so this call reads that cache even when the newest
     exchange added more blocks than the API's ~20-block lookback.

Inputs are never mutated: changed messages/blocks are copied, untouched
ones are shared with the input.
"""

from __future__ import annotations

from typing import Any

EPHEMERAL = {"type": "ephemeral"}
MAX_BREAKPOINTS = 4
_UNCACHEABLE = ("thinking", "redacted_thinking")


def _without_cache_control(block: Any) -> Any:
    if isinstance(block, dict) and "cache_control" in block:
        return {k: v for k, v in block.items() if k != "cache_control"}
    return block


def _cacheable(block: Any) -> bool:
    if not isinstance(block, dict) or block.get("type") in _UNCACHEABLE:
        return False
    return block.get("type") != "text" or bool(block.get("text"))


def _marked(block: dict) -> dict:
    return {**block, "cache_control": dict(EPHEMERAL)}


def _system_blocks(system: str | list[dict] | None) -> list[dict]:
    if not system:
        return []
    blocks = [{"type": "text", "text": system}] if isinstance(system, str) else [_without_cache_control(b) for b in system]
    for i in range(len(blocks) - 1, -1, -1):
        if _cacheable(blocks[i]):
            blocks[i] = _marked(blocks[i])
            break
    return blocks


def _mark_message(message: dict) -> tuple[dict, bool]:
    """A copy of message with its last cacheable block marked, and whether one was."""
    content = message.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
    for i in range(len(blocks) - 1, -1, -1):
        if _cacheable(blocks[i]):
            blocks[i] = _marked(blocks[i])
            return {**message, "content": blocks}, True
    return message, False


def _strip_message(message: dict) -> dict:
    content = message.get("content")
    if isinstance(content, list) and any(isinstance(b, dict) and "cache_control" in b for b in content):
        return {**message, "content": [_without_cache_control(b) for b in content]}
    return message


def with_cache_breakpoints(
    system: str | list[dict] | None, tools: list[dict] | None, messages: list[dict]
) -> tuple[list[dict], list[dict], list[dict]]:
    """Copies of (system as blocks, tools, messages) carrying cache_control breakpoints.

    Any cache_control already present in the inputs is removed first, so the
    total never exceeds the API's limit of 4.
    """
    system_blocks = _system_blocks(system)
    used = sum(1 for b in system_blocks if "cache_control" in b)

    new_tools = [_without_cache_control(t) for t in tools or []]
    if new_tools:
        new_tools[-1] = _marked(new_tools[-1])
        used += 1

    new_messages = [_strip_message(m) for m in messages]
    tail_candidates = [len(new_messages) - 1] if new_messages else []
    previous_user = next((i for i in range(len(new_messages) - 2, -1, -1)
                          if new_messages[i].get("role") == "user"), None)
    if previous_user is not None:
        tail_candidates.append(previous_user)
    for index in tail_candidates:
        if used >= MAX_BREAKPOINTS:
            break
        new_messages[index], marked = _mark_message(new_messages[index])
        used += marked
    return system_blocks, new_tools, new_messages
