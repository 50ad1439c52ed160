"""Server-side context editing applied to one request, as the API does it: what the model sees and is billed for.

For the replay of a policy that sends ``context_management`` (agentls with server editing): the client sends
its whole history and the API edits it before the model reads it. From
https://platform.claude.com/docs/en/build-with-claude/context-editing (read 2026-12) and the SDK's
BetaClearToolUses20250919EditParam / BetaClearThinking20251015EditParam:

- ``clear_tool_uses_20250919``: once the prompt passes ``trigger`` (input tokens, 100K by default; or a
  number of tool uses), the results of all but the ``keep`` newest tool uses (3 by default) are replaced by
  a placeholder, oldest first; tools named in ``exclude_tools`` are kept; ``clear_tool_inputs`` clears the
  calls' inputs too (all, or the named tools'); nothing is cleared when less than ``clear_at_least`` tokens
  would go (what a result frees: its text less the placeholder's).
- ``clear_thinking_20251015``: the thinking of all but the ``keep`` newest assistant turns that carry
  thinking is removed (``"all"`` keeps every block).

The edits happen after the prefix check, so they never invalidate a thinking block: the binding check of
the replay runs on what the client sent, the price on what this module returns. The edit is stateless (as
in mock_api's emulation): it is made again on every request from the full history, so once past the
trigger each request clears one more tool use than the last and the prompt changes from there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..context.blocks import Message, block_chars, blocks_of, message_chars
from ..context.tokens import CHARS_PER_TOKEN
from ..mock_api.binding import is_thinking
from .anthropic_editing import CLEAR_TRIGGER, CLEARED, KEEP_TOOL_USES
from .thinking_ledger import strip_thinking

CLEAR_TOOL_USES, CLEAR_THINKING = "clear_tool_uses_20250919", "clear_thinking_20251015"


def apply_edits(messages: list[Message], context_management: Mapping[str, Any],
                system_tokens: float) -> tuple[list[Message], tuple[dict[str, Any], ...]]:
    """The request after the server's edits, and the edits applied (as a response's ``applied_edits``)."""
    edited, applied = list(messages), []
    for edit in context_management.get("edits") or ():
        if edit.get("type") == CLEAR_TOOL_USES:
            edited, done = _clear_tool_uses(edited, edit, system_tokens)
        elif edit.get("type") == CLEAR_THINKING:
            edited, done = _clear_thinking(edited, edit)
        else:
            continue
        if done is not None:
            applied.append(done)
    return edited, tuple(applied)


def _tokens(chars: float) -> float:
    return chars / CHARS_PER_TOKEN


def _clear_tool_uses(messages: list[Message], edit: Mapping[str, Any],
                     system_tokens: float) -> tuple[list[Message], dict[str, Any] | None]:
    names = {b.get("id"): b.get("name") for m in messages if m["role"] == "assistant"
             for b in blocks_of(m) if b.get("type") == "tool_use"}
    results = [b for m in messages if m["role"] == "user" for b in blocks_of(m) if b.get("type") == "tool_result"]
    trigger = edit.get("trigger") or {"type": "input_tokens", "value": CLEAR_TRIGGER}
    size = system_tokens + _tokens(sum(message_chars(m) for m in messages))
    reached = len(results) if trigger.get("type") == "tool_uses" else size
    if reached <= trigger.get("value", CLEAR_TRIGGER):  # past the trigger, as the mock API reads it
        return messages, None
    keep = (edit.get("keep") or {}).get("value", KEEP_TOOL_USES)
    excluded = set(edit.get("exclude_tools") or ())
    kept = {b.get("tool_use_id") for b in results[len(results) - keep:]} if keep else set()
    cleared = {b.get("tool_use_id") for b in results if b.get("tool_use_id") not in kept
               and names.get(b.get("tool_use_id")) not in excluded and b.get("content") != CLEARED}
    inputs = edit.get("clear_tool_inputs") or False

    def clears_input(name: Any) -> bool:
        return inputs if isinstance(inputs, bool) else name in inputs
    freed = sum(_tokens(block_chars(b) - len(CLEARED)) for b in results if b.get("tool_use_id") in cleared)
    freed += sum(_tokens(block_chars(b)) for m in messages if m["role"] == "assistant" for b in blocks_of(m)
                 if b.get("type") == "tool_use" and b.get("id") in cleared and clears_input(b.get("name")))
    least = (edit.get("clear_at_least") or {}).get("value", 0)
    if not cleared or freed < least:
        return messages, None

    def edited_block(block: dict[str, Any]) -> dict[str, Any]:
        if block.get("type") == "tool_result" and block.get("tool_use_id") in cleared:
            return {**block, "content": CLEARED}
        if block.get("type") == "tool_use" and block.get("id") in cleared and clears_input(block.get("name")):
            return {**block, "input": {}}
        return block

    return (_rewritten(messages, edited_block),
            {"type": CLEAR_TOOL_USES, "cleared_tool_uses": len(cleared), "cleared_input_tokens": int(freed)})


def _clear_thinking(messages: list[Message], edit: Mapping[str, Any]) -> tuple[list[Message], dict[str, Any] | None]:
    keep = edit.get("keep") or {"type": "thinking_turns", "value": 1}
    if keep == "all" or keep.get("type") == "all":
        return messages, None
    turns = [i for i, m in enumerate(messages) if m["role"] == "assistant"
             and any(is_thinking(b) for b in blocks_of(m))]
    value = keep.get("value", 1)
    cleared = set(turns[:len(turns) - value] if value else turns)
    if not cleared:
        return messages, None
    freed = sum(_tokens(block_chars(b)) for i in cleared for b in blocks_of(messages[i]) if is_thinking(b))
    edited = [strip_thinking(m) if i in cleared else m for i, m in enumerate(messages)]
    return edited, {"type": CLEAR_THINKING, "cleared_thinking_turns": len(cleared), "cleared_input_tokens": int(freed)}


def _rewritten(messages: list[Message], edit: Any) -> list[Message]:
    """Messages with `edit` applied to each block; a message nothing changed in stays the same object."""
    out = []
    for message in messages:
        if isinstance(message.get("content"), str):
            out.append(message)  # plain text: nothing to clear
            continue
        blocks = blocks_of(message)
        changed = [edit(b) for b in blocks]
        out.append(message if all(a is b for a, b in zip(blocks, changed)) else {**message, "content": changed})
    return out
