"""The last resort: make the request fit when no layer and no summary can.

Every other layer leaves something alone (the newest results, the last
assistant message, edit confirmations, user texts). When even the emergency
batch leaves the request over the window, the largest blocks are cut, head
and tail kept, until it fits; the full text goes to the store first, so this
too is lossless. Thinking blocks are never cut (their signature must match), nor system messages
(instructions the caller appended: they are restated, never shortened).
"""

from __future__ import annotations

from collections.abc import Callable

from .blocks import Block, blocks_of, block_chars, result_text
from .config import ContextConfig
from .history import SYSTEM, History
from .placeholders import cut_middle
from .rewrite import readable_input
from .store import ResultStore, input_ref, result_ref, text_ref

LABEL = "cut to fit the window"
SMALLEST = 600  # chars: below this a cut frees nothing worth having


def _largest(history: History) -> tuple[int, int, Block] | None:
    best: tuple[int, int, int, Block] | None = None
    for i, message in enumerate(history.messages):
        if message["role"] == SYSTEM:
            continue
        for j, block in enumerate(blocks_of(message)):
            if block.get("type") not in ("text", "tool_result", "tool_use"):
                continue
            chars = block_chars(block)
            if chars >= SMALLEST and (best is None or chars > best[0]):
                best = (chars, i, j, block)
    return None if best is None else best[1:]


def _cut(block: Block, keep: int, store: ResultStore) -> Block:
    kind = block["type"]
    if kind == "text":
        ref = text_ref(block["text"])
        store.put(ref, block["text"])
        return {**block, "text": cut_middle(block["text"], keep, ref, LABEL)}
    if kind == "tool_result":
        ref = result_ref(block["tool_use_id"])
        text = result_text(block)
        store.put(ref, text)  # first write wins: an original stored earlier stays
        return {**block, "content": cut_middle(text, keep, ref, LABEL)}
    ref = input_ref(block["id"])
    tool_input = block.get("input") or {}
    store.put(ref, readable_input(tool_input))
    longest = max((k for k, v in tool_input.items() if isinstance(v, str)), key=lambda k: len(tool_input[k]),
                  default=None)
    if longest is None:
        return block
    return {**block, "input": {**tool_input, longest: cut_middle(tool_input[longest], keep, ref, LABEL)}}


def fit_to_window(history: History, config: ContextConfig, store: ResultStore, estimate: Callable[[], int]) -> int:
    """Cut the largest blocks until the estimate fits the window; returns how many were cut."""
    cuts = 0
    while estimate() > config.effective_window:
        found = _largest(history)
        if found is None:
            break
        i, j, block = found
        excess = int((estimate() - config.effective_window) * config.chars_per_token) + SMALLEST
        chars = block_chars(block)
        keep = max(SMALLEST // 2, min(chars // 2, chars - excess))
        if history.cut_block(i, j, _cut(block, keep, store)) <= 0:
            break
        cuts += 1
    return cuts
