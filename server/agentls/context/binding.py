"""Bound thinking: which thinking blocks a history carries, and the one safe way to rewrite before them.

On models that bind thinking to its prefix (model/binding.py), every thinking or redacted_thinking block
the history carries was signed for the exact prefix before it: the top-level `system` and `tools`, every
earlier message, and the blocks of its own message before it. Anything that changes there makes the API
answer 400 (or drop the block). Documented as safe
(https://platform.claude.com/docs/en/build-with-claude/preserved-thinking/prefix-checks and
…/preserved-thinking/fix-bound-to-a-different-conversation): appending, moving `cache_control`, server-side
context editing and compaction, and removing thinking blocks — from the front, never one between others.

So a history is frozen up to its last carried thinking block (`binding_end`). A deliberate rewrite of a
message before that point is made safe by `release_thinking`: every thinking block at or after the first
changed message goes (the blocks before it keep their prefix; those after it lose theirs), so the blocks
kept are the oldest ones, contiguous, and each still sits on the prefix it was signed for.
"""

from __future__ import annotations

from collections.abc import Sequence

from .blocks import Block, Message, blocks_of
from .history import History

THINKING_TYPES = ("thinking", "redacted_thinking")
# What stands in for an assistant message that held nothing but thinking (the API refuses an empty one).
RELEASED_MARK = "[earlier reasoning released: the conversation before it was rewritten]"


def is_thinking(block: Block) -> bool:
    return block.get("type") in THINKING_TYPES


def thinking_places(messages: Sequence[Message]) -> list[tuple[int, int]]:
    """(message, block) of every thinking block carried, in request order."""
    return [(i, j) for i, message in enumerate(messages) if message.get("role") == "assistant"
            for j, block in enumerate(blocks_of(message)) if is_thinking(block)]


def binding_end(messages: Sequence[Message]) -> int:
    """Messages before this index may not change (the one holding the last carried thinking block included);
    0 when the history carries no thinking."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") == "assistant" and any(is_thinking(b) for b in blocks_of(message)):
            return index + 1
    return 0


def first_changed(before: Sequence[Message], after: Sequence[Message]) -> int | None:
    """The first index where `after` differs from `before` (messages are copy-on-write: identity tells),
    None when `after` only extends `before` or equals it."""
    for index, (old, new) in enumerate(zip(before, after)):
        if old is not new and old != new:
            return index
    return None if len(after) >= len(before) else len(after)


def without_thinking(message: Message) -> tuple[Message, int]:
    """`message` with its thinking blocks removed, and how many went (the message itself when none)."""
    blocks = blocks_of(message)
    kept = [b for b in blocks if not is_thinking(b)]
    released = len(blocks) - len(kept)
    if not released:
        return message, 0
    return {**message, "content": kept or [{"type": "text", "text": RELEASED_MARK}]}, released


def released_messages(messages: Sequence[Message], from_message: int) -> tuple[list[Message], int]:
    """`messages` with every thinking block at or after `from_message` removed, and how many went."""
    out = list(messages)
    total = 0
    for index in range(max(0, from_message), len(out)):
        if out[index].get("role") == "assistant":
            out[index], released = without_thinking(out[index])
            total += released
    return out, total


def release_thinking(history: History, from_message: int) -> tuple[int, int]:
    """Remove every thinking block at or after message `from_message` from `history` (copy-on-write);
    (blocks released, tokens freed)."""
    before, count = history.total_tokens, 0
    for index in range(max(0, from_message), len(history.messages)):
        message = history.messages[index]
        if message["role"] == "assistant":
            new, released = without_thinking(message)
            if released:
                history.replace_message(index, new)
                count += released
    return count, before - history.total_tokens
