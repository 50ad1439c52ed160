"""Server-side context editing: what the API clears before the model reads the request.

Sources (read 2026-12): https://platform.claude.com/docs/en/build-with-claude/context-editing and the anthropic
SDK's BetaClearToolUses20250919EditParam / BetaClearThinking20251015EditParam / BetaContextManagementResponse
(beta context-management-2025-06-27). `clear_tool_uses_20250919`: once the prompt passes `trigger` (default
100,000 input tokens), the oldest tool results are cleared, keeping the newest `keep` tool uses (default 3),
never those of `exclude_tools`, and only if at least `clear_at_least` tokens go; `clear_tool_inputs` clears the
calls' inputs too. `clear_thinking_20251015`: thinking of all but the newest `keep` assistant turns with
thinking (default 1 turn; "all" keeps every one) is left out; it comes first when both are given.

The edits change what is counted (usage, the prompt cache), never what the client sent: the thinking checks
read the request as sent.
"""

from __future__ import annotations

import copy
from typing import Any

from .tokens import block_tokens

CONTEXT_MANAGEMENT_BETA = "context-management-2025-06-27"
CLEAR_TOOL_USES = "clear_tool_uses_20250919"
CLEAR_THINKING = "clear_thinking_20251015"
DEFAULT_TRIGGER_TOKENS = 100_000
DEFAULT_KEEP_TOOL_USES = 3
DEFAULT_KEEP_THINKING_TURNS = 1
CLEARED = "[cleared by context management]"


def _blocks(message: Any) -> list[Any]:
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def _edits(body: dict) -> list[dict]:
    config = body.get("context_management")
    edits = config.get("edits") if isinstance(config, dict) else None
    return [e for e in edits if isinstance(e, dict)] if isinstance(edits, list) else []


def editing_error(body: dict, betas: frozenset[str], entry: dict | None) -> str | None:
    """The 400 for a `context_management` parameter the API would refuse."""
    if body.get("context_management") is None:
        return None
    if CONTEXT_MANAGEMENT_BETA not in betas:
        return f"context_management: requires the anthropic-beta header {CONTEXT_MANAGEMENT_BETA}"
    edits = _edits(body)
    kinds = [e.get("type") for e in edits]
    for index, kind in enumerate(kinds):
        if kind not in (CLEAR_TOOL_USES, CLEAR_THINKING):
            return (f"context_management.edits.{index}.type: Input should be '{CLEAR_TOOL_USES}' or "
                    f"'{CLEAR_THINKING}'")
        capability = ((entry or {}).get("capabilities") or {}).get("context_management") or {}
        if entry is not None and not (capability.get(kind) or {}).get("supported"):
            return f"context_management.edits.{index}.type: '{kind}' is not supported for {body.get('model')}"
    if CLEAR_THINKING in kinds and kinds.index(CLEAR_THINKING) != 0:
        return f"context_management.edits: '{CLEAR_THINKING}' must come first when several edits are given"
    return None


def _value(spec: Any, default: int) -> int:
    value = spec.get("value") if isinstance(spec, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def apply_edits(body: dict, count: Any) -> tuple[dict, list[dict]]:
    """(the request as the model reads it, `applied_edits`); `count(body)` gives its input tokens."""
    edited = copy.deepcopy(body)
    applied: list[dict] = []
    for edit in _edits(body):
        if edit.get("type") == CLEAR_THINKING:
            cleared = _clear_thinking(edited, edit)
        else:
            cleared = _clear_tool_uses(edited, edit, count(edited))
        if cleared is not None:
            applied.append(cleared)
    return edited, applied


def _clear_thinking(body: dict, edit: dict) -> dict | None:
    keep = edit.get("keep")
    if keep == "all" or (isinstance(keep, dict) and keep.get("type") == "all"):
        return None
    kept = _value(keep, DEFAULT_KEEP_THINKING_TURNS)
    turns = [m for m in body["messages"] if m.get("role") == "assistant"
             and any(isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking") for b in _blocks(m))]
    cleared = turns[:max(0, len(turns) - kept)]
    tokens = 0
    for message in cleared:
        kept_blocks = []
        for block in _blocks(message):
            if isinstance(block, dict) and block.get("type") in ("thinking", "redacted_thinking"):
                tokens += block_tokens(block)
            else:
                kept_blocks.append(block)
        message["content"] = kept_blocks
    if not cleared:
        return None
    return {"type": CLEAR_THINKING, "cleared_thinking_turns": len(cleared), "cleared_input_tokens": tokens}


def _tool_uses(body: dict) -> list[tuple[dict, dict | None]]:
    """(tool_use block, its tool_result block or None), oldest first."""
    results = {b.get("tool_use_id"): b for m in body["messages"] if m.get("role") == "user"
               for b in _blocks(m) if isinstance(b, dict) and b.get("type") == "tool_result"}
    return [(b, results.get(b.get("id"))) for m in body["messages"] if m.get("role") == "assistant"
            for b in _blocks(m) if isinstance(b, dict) and b.get("type") == "tool_use"]


def _clear_tool_uses(body: dict, edit: dict, prompt_tokens: int) -> dict | None:
    trigger = edit.get("trigger")
    uses = _tool_uses(body)
    if isinstance(trigger, dict) and trigger.get("type") == "tool_uses":
        if len(uses) <= _value(trigger, 0):
            return None
    elif prompt_tokens <= _value(trigger, DEFAULT_TRIGGER_TOKENS):
        return None
    excluded = set(edit.get("exclude_tools") or ())
    keep = _value(edit.get("keep"), DEFAULT_KEEP_TOOL_USES)
    older = uses[:max(0, len(uses) - keep)]
    candidates = [(use, result) for use, result in older if use.get("name") not in excluded
                  and result is not None and result.get("content") != CLEARED]
    inputs = edit.get("clear_tool_inputs")
    tokens = sum(block_tokens(result) - block_tokens({**result, "content": CLEARED}) for _, result in candidates)
    for use, _ in candidates:
        if inputs is True or (isinstance(inputs, list) and use.get("name") in inputs):
            tokens += block_tokens(use) - block_tokens({**use, "input": {}})
    if not candidates or tokens < _value(edit.get("clear_at_least"), 0):
        return None
    for use, result in candidates:
        assert result is not None
        result["content"] = CLEARED
        if inputs is True or (isinstance(inputs, list) and use.get("name") in inputs):
            use["input"] = {}
    return {"type": CLEAR_TOOL_USES, "cleared_tool_uses": len(candidates), "cleared_input_tokens": tokens}
