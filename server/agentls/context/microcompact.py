"""Microcompact: after an idle gap the prompt cache has expired, so rewriting is free.

Then all but the most recent few result bodies are cleared at once, whatever
the utilization: the next request pays a full cache write either way.
"""

from __future__ import annotations

from itertools import chain
from collections.abc import Collection, Iterator

from .clearing import plan_clear_inputs, plan_clear_results
from .config import ContextConfig
from .history import History
from .rewrite import MICROCOMPACT, Rewrite


def is_idle(config: ContextConfig, now: float, last_call_at: float | None) -> bool:
    return last_call_at is not None and now - last_call_at >= config.idle_gap_seconds


def plan_microcompact(history: History, config: ContextConfig, unseen: Collection[str] = ()) -> Iterator[Rewrite]:
    """An idle gap may fall while a tool runs or waits for approval: its result is not cleared unseen."""
    keep = config.idle_keep_recent
    return chain(
        plan_clear_results(history, config, keep, layer=MICROCOMPACT, unseen=unseen),
        plan_clear_inputs(history, config, keep),
    )
