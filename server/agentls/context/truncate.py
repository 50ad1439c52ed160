"""L0: one huge result is cut to head + tail when it enters the history."""

from __future__ import annotations

from typing import Any

from .blocks import Message, blocks_of, result_text
from .placeholders import cut_middle
from .rewrite import readable_input
from .store import ResultStore, input_ref, result_ref, text_ref


def truncate_results(message: Message, limit: int, store: ResultStore) -> tuple[Message, list[str]]:
    """The message with every tool_result over limit chars cut; the full texts go to the store."""
    if message.get("role") != "user" or isinstance(message.get("content"), str):
        return message, []
    cut_ids: list[str] = []
    new_blocks = []
    for block in blocks_of(message):
        if block.get("type") == "tool_result":
            text = result_text(block)
            if len(text) > limit:
                ref = result_ref(block["tool_use_id"])
                store.put(ref, text)
                block = {**block, "content": cut_middle(text, limit, ref, "truncated")}
                cut_ids.append(block["tool_use_id"])
        new_blocks.append(block)
    if not cut_ids:
        return message, []
    return {**message, "content": new_blocks}, cut_ids


def cut_oversized(message: Message, limit: int, store: ResultStore) -> tuple[Message, int]:
    """The message with every text block and tool input field over limit chars cut (head + tail).

    A single message can be larger than the whole window (an assistant looping in
    its reasoning, a huge paste, a file written in one call); no later layer could
    make it fit. The original goes to the store first. Thinking blocks are left
    alone: their signature must match, and the model's output limit bounds them.
    Returns the message and how many blocks were cut.
    """
    cut = 0
    new_blocks = []
    for block in blocks_of(message):
        if block.get("type") == "text" and len(block.get("text", "")) > limit:
            text = block["text"]
            ref = text_ref(text)
            store.put(ref, text)
            block = {**block, "text": cut_middle(text, limit, ref, "cut (message too long for the window)")}
            cut += 1
        elif block.get("type") == "tool_use" and _long_fields(block.get("input") or {}, limit):
            ref = input_ref(block["id"])
            store.put(ref, readable_input(block["input"]))
            block = {**block, "input": {name: cut_middle(value, limit, ref, "cut (input too long for the window)")
                                        if name in _long_fields(block["input"], limit) else value
                                        for name, value in block["input"].items()}}
            cut += 1
        new_blocks.append(block)
    if not cut:
        return message, 0  # untouched, a bare string included
    return {**message, "content": new_blocks}, cut


def _long_fields(tool_input: dict[str, Any], limit: int) -> set[str]:
    return {name for name, value in tool_input.items() if isinstance(value, str) and len(value) > limit}
