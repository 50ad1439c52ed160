"""Clearing: results (also those a harness sent as user text) and large tool inputs older than the most recent few.

Tool results are most of a long session; tool inputs (file contents written,
edit strings) are most of the rest. Both are re-readable from the store, so
only the recent ones need to stay verbatim. A result no request has carried
yet (`unseen`) is never cleared: the model must see it once before a
placeholder may stand in for it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator

from .blocks import blocks_of
from .config import ContextConfig
from .history import History
from .naming import names_in, written_text
from .placeholders import PLACEHOLDER_TOKENS, clear_saving, worth_rewriting
from .rewrite import CLEAR, CLEAR_INPUT, CLEAR_TEXT, Rewrite
from .store import result_ref


def older_than(history: History, config: ContextConfig, keep_recent: int) -> int:
    """Results with a sequence number below this are outside the recent ones.

    The recent ones are at most keep_recent results and, in a small window, only
    as many as fit in a share of it (at least the newest one).
    """
    budget = config.clear_recent_fraction * config.effective_window
    kept, spent = 0, 0
    for tool_use_id in reversed(history.results[-keep_recent:] if keep_recent > 0 else []):
        spent += config.tokens(history.records[tool_use_id].chars)
        if kept and spent > budget:
            break
        kept += 1
    return len(history.results) - kept


def kept_named(history: History, config: ContextConfig, boundary: int, turns: int) -> set[str]:
    """The older results named in the last `turns` replies that stay, the latest named first, as many as fit
    beside the recent ones in the same share of the window (a small window keeps few)."""
    if turns <= 0:
        return set()
    budget = config.clear_recent_fraction * config.effective_window
    budget -= sum(config.tokens(history.records[i].chars) for i in history.results[boundary:])
    named = [i for i in history.live if history.records[i].seq < boundary and history.names.named_within(i, turns)]
    named.sort(key=lambda i: history.names.named_turn[i], reverse=True)
    kept: set[str] = set()
    for tool_use_id in named:
        budget -= config.tokens(history.records[tool_use_id].chars)
        if budget < 0:
            break
        kept.add(tool_use_id)
    return kept


def plan_clear_results(history: History, config: ContextConfig, keep_recent: int,
                       layer: str = CLEAR, unseen: Collection[str] = (), keep_named: int = 0) -> Iterator[Rewrite]:
    """keep_named: results that arrived or were named in that many latest replies stay too (naming.py)."""
    boundary = older_than(history, config, keep_recent)
    named = kept_named(history, config, boundary, keep_named)
    for tool_use_id in history.live:  # arrival order: stop at the recent ones
        record = history.records[tool_use_id]
        if record.seq >= boundary:
            return
        if tool_use_id in unseen or tool_use_id in named:
            continue
        saves = clear_saving(record, config.tokens, result_ref(tool_use_id))
        if worth_rewriting(saves):
            yield Rewrite(tool_use_id, layer, saves)


def plan_clear_inputs(history: History, config: ContextConfig, keep_recent: int) -> Iterator[Rewrite]:
    boundary = older_than(history, config, keep_recent)
    for tool_use_id in history.live_inputs:
        record = history.records[tool_use_id]
        if record.seq < 0 or record.seq >= boundary:
            return
        saves = config.tokens(record.input_chars) - PLACEHOLDER_TOKENS
        if worth_rewriting(saves):
            yield Rewrite(tool_use_id, CLEAR_INPUT, saves)


def plan_clear_text_results(history: History, config: ContextConfig, keep_recent: int,
                            keep_named: int = 0) -> Iterator[Rewrite]:
    """Results the harness sent as user text (text_results.py) outside the keep_recent newest, in a session
    that has made no tool call (where there are tool calls, user text is the user's own words). keep_named:
    those the last that many replies named stay too (newest first, within the recent results' share)."""
    index = history.text_results
    if not config.clear_text_results or not index.active:
        return
    written = replies_words(history, keep_named)
    budget = config.clear_recent_fraction * config.effective_window
    planned = []
    for message, block in index.candidates(max(1, keep_recent)):
        tokens = config.tokens(len(str(blocks_of(history.messages[message])[block].get("text", ""))))
        planned.append((message, block, tokens))
    kept = set()
    for message, block, tokens in reversed(planned):  # the newest named first
        if written and index.named((message, block), written) and tokens <= budget:
            budget -= tokens
            kept.add((message, block))
    for message, block, tokens in planned:
        saves = tokens - PLACEHOLDER_TOKENS
        if (message, block) not in kept and worth_rewriting(saves):
            yield Rewrite("", CLEAR_TEXT, saves, message=message, block=block)


def replies_words(history: History, replies: int) -> set[str]:
    """The names the last `replies` replies wrote (naming.py). Work: those replies and what lies between."""
    words: set[str] = set()
    for message in reversed(history.messages):
        if replies <= 0:
            break
        if message["role"] == "assistant":
            words |= names_in(written_text(message))
            replies -= 1
    return words
