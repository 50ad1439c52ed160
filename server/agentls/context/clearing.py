"""Clearing: results and large tool inputs older than the most recent few.

Tool results are most of a long session; tool inputs (file contents written,
edit strings) are most of the rest. Both are re-readable from the store, so
only the recent ones need to stay verbatim. A result no request has carried
yet (`unseen`) is never cleared: the model must see it once before a
placeholder may stand in for it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator

from .config import ContextConfig
from .history import History
from .placeholders import PLACEHOLDER_TOKENS, clear_saving, worth_rewriting
from .rewrite import CLEAR, CLEAR_INPUT, Rewrite
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


def plan_clear_results(history: History, config: ContextConfig, keep_recent: int,
                       layer: str = CLEAR, unseen: Collection[str] = ()) -> Iterator[Rewrite]:
    boundary = older_than(history, config, keep_recent)
    for tool_use_id in history.live:  # arrival order: stop at the recent ones
        record = history.records[tool_use_id]
        if record.seq >= boundary:
            return
        if tool_use_id in unseen:
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
