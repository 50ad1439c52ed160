"""User content too big for the context window, cut losslessly before it is ever sent.

A 3 MB @-attachment (or pasted prompt) used to go out as is: the API refused
it with 400 "prompt is too long", the message stayed in the history and every
later turn, compaction and restart failed the same way. Here a user text
block over its share of the window keeps its head, and the whole text goes
to the result store under a `context://user-…` ref that read_file reads back
(by line ranges), like a truncated tool result. Refs are named after the
text's hash, so cutting the same text again (after a restart) names the same ref.

Tool results are not touched here: L0 (context/truncate.py) already bounds
them when they are appended. The engine applies this (ContextEngine.add_user_turn,
fit_user_texts); whether an API refusal was about size is model/errors.py's call.
"""

from __future__ import annotations

import hashlib
from typing import Any

from .store import ResultStore

# A new user message may take this share of the effective window.
USER_SHARE = 0.5
# Head kept of a cut block at the least, so the model sees what it is about.
MIN_HEAD_CHARS = 2_000

USER_REF_PREFIX = "context://user-"  # the original of a user text too big for the window


def user_ref(text: str) -> str:
    return f"{USER_REF_PREFIX}{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"


def _cut(text: str, keep: int, store: ResultStore) -> str:
    ref = user_ref(text)
    store.put(ref, text)
    lines = text.count("\n") + 1
    note = (f"\n[… cut here: this text has {len(text):,} characters ({lines:,} lines), more than the context "
            f"window holds. The whole text is stored as {ref}; read it in parts with read_file "
            f"(path {ref}, start_line/end_line).]")
    return text[:max(MIN_HEAD_CHARS, keep - len(note))] + note


def _shares(sizes: list[int], budget: int) -> list[int]:
    """What each block may keep: small blocks keep all, large ones split what is left equally."""
    keep = [0] * len(sizes)
    remaining = budget
    order = sorted(range(len(sizes)), key=lambda i: sizes[i])
    for rank, index in enumerate(order):
        keep[index] = min(sizes[index], max(0, remaining) // (len(order) - rank))
        remaining -= keep[index]
    return keep


def fit_user_blocks(blocks: list[dict[str, Any]], budget_chars: int, store: ResultStore) -> tuple[list[dict[str, Any]], int]:
    """`blocks` with text blocks cut so that together they stay within `budget_chars`; (blocks, how many cut)."""
    texts = [i for i, block in enumerate(blocks) if block.get("type") == "text" and isinstance(block.get("text"), str)]
    sizes = [len(blocks[i]["text"]) for i in texts]
    if sum(sizes) <= budget_chars:
        return blocks, 0
    fitted = list(blocks)
    cut = 0
    for index, size, keep in zip(texts, sizes, _shares(sizes, budget_chars)):
        if size > keep and size > MIN_HEAD_CHARS:
            fitted[index] = {**blocks[index], "text": _cut(blocks[index]["text"], keep, store)}
            cut += 1
    return fitted, cut


def fit_history(messages: list[dict[str, Any]], budget_chars: int, store: ResultStore) -> tuple[list[dict[str, Any]], int]:
    """Every user message's text blocks fitted to `budget_chars` (tool results left alone)."""
    out: list[dict[str, Any]] = []
    total = 0
    for message in messages:
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if message.get("role") == "user" and isinstance(content, list):
            content, cut = fit_user_blocks(content, budget_chars, store)
            if cut:
                total += cut
                message = {**message, "content": content}
        out.append(message)
    return out, total
