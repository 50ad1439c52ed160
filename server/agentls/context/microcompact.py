"""Microcompact: after an idle gap the prompt cache has expired, so rewriting is free.

Then all but the most recent few result bodies are cleared at once, whatever
the utilization: the next request pays a full cache write either way.

What "expired" means depends on the TTL the last request gave its stable
breakpoints (model/cache.py: the head and the stable frontier carry "5m" or
"1h"; the tail breakpoints always carry 5 minutes). With the 1-hour TTL a
5-minute pause is not a cold cache: the prefix up to the frontier is still
read, so nothing is cleared for idleness until the hour is over. Only the
tail after the frontier has expired by then, and every rewrite a layer can
make lies after the frontier (context/frontier.py): rewriting there costs
no extra write, which `tail_expired` tells the policy.
"""

from __future__ import annotations

from itertools import chain
from collections.abc import Collection, Iterator

from .clearing import plan_clear_inputs, plan_clear_results
from .config import ContextConfig
from .history import History
from .prompt_cache import FIVE_MINUTES, TTL_SECONDS
from .rewrite import MICROCOMPACT, Rewrite


def idle_gap(config: ContextConfig, ttl: str = FIVE_MINUTES) -> float:
    """Seconds after the last call from which the cached prefix (TTL `ttl`) is gone."""
    return max(config.idle_gap_seconds, TTL_SECONDS.get(ttl, TTL_SECONDS[FIVE_MINUTES]))


def is_idle(config: ContextConfig, now: float, last_call_at: float | None, ttl: str = FIVE_MINUTES) -> bool:
    """The whole cache has expired: the head and frontier entries (TTL `ttl`) as well as the tail."""
    return last_call_at is not None and now - last_call_at >= idle_gap(config, ttl)


def tail_expired(config: ContextConfig, now: float, last_call_at: float | None) -> bool:
    """The 5-minute tail entries have expired (the prefix may live on under a 1-hour TTL)."""
    return is_idle(config, now, last_call_at, FIVE_MINUTES)


def plan_microcompact(history: History, config: ContextConfig, unseen: Collection[str] = ()) -> Iterator[Rewrite]:
    """An idle gap may fall while a tool runs or waits for approval: its result is not cleared unseen."""
    keep = config.idle_keep_recent
    return chain(
        plan_clear_results(history, config, keep, layer=MICROCOMPACT, unseen=unseen),
        plan_clear_inputs(history, config, keep),
    )
