"""L0: one huge result is cut to head + tail when it enters the history."""

from __future__ import annotations

from .blocks import Message, blocks_of, result_text
from .placeholders import cut_middle
from .store import ResultStore, result_ref


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
