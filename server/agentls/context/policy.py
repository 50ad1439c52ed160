"""Cache-aware batching: when to rewrite old blocks at all.

Rewriting a block invalidates the prompt cache from that block on, so the
request must stay an append-only extension of the previous one except at
deliberate moments. A batch gathers every eligible rewrite of every layer
and is carried out only when it frees a worthwhile amount (cf.
``clear_at_least``), when the cache is cold anyway (first call, after an
idle gap, after a compaction), or when the window is under pressure. Each
block is rewritten at most once, so a rewritten prefix stays cached.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain
from typing import Iterable, Sequence

from .budget import plan_budget
from .clearing import plan_clear_inputs, plan_clear_results
from .config import ContextConfig
from .history import History
from .microcompact import plan_microcompact
from .prompt_cache import rewrite_cost
from .rewrite import Rewrite
from .snip import plan_snip


@dataclass
class Batch:
    reason: str  # "threshold", "cold", "idle", "pressure", "emergency"
    rewrites: list[Rewrite] = field(default_factory=list)

    @property
    def saves(self) -> int:
        return sum(r.saves for r in self.rewrites)


def _gather(sources: Iterable[Rewrite], claimed: dict[tuple[str, bool], Rewrite]) -> None:
    for rewrite in sources:
        claimed.setdefault((rewrite.tool_use_id, rewrite.on_input), rewrite)


def plan_batch(history: History, config: ContextConfig, estimate: int, *,
               cold: bool, idle: bool, cached_ends: Sequence[int] = ()) -> Batch | None:
    window = config.effective_window
    utilization = estimate / window
    exempt = set(history.recent_results(config.snip_keep_recent))
    claimed: dict[tuple[str, bool], Rewrite] = {}
    if idle or utilization >= config.snip_at:
        _gather(plan_snip(history, config, exempt), claimed)
    if idle:
        _gather(plan_microcompact(history, config), claimed)
    if utilization >= config.clear_at:
        keep = config.clear_keep_recent
        _gather(chain(plan_clear_results(history, config, keep),
                      plan_clear_inputs(history, config, keep)), claimed)
    after = (estimate - sum(r.saves for r in claimed.values())) / window
    taken = {key[0] for key in claimed if not key[1]}
    _gather((r for r in plan_budget(history, config, after, exempt) if r.tool_use_id not in taken), claimed)
    if not claimed:
        return None
    batch = Batch("threshold", list(claimed.values()))
    if idle:
        batch.reason = "idle"
    elif cold:
        batch.reason = "cold"  # nothing cached to lose: no minimum size
    elif batch.saves >= config.min_batch and \
            batch.saves >= config.batch_payoff * _rewritten_after(history, batch, config, cached_ends):
        batch.reason = "threshold"
    elif utilization >= config.compact_at and (estimate - batch.saves) / window < config.compact_at:
        batch.reason = "pressure"  # this batch alone avoids a summary: cheaper than one
    else:
        return None
    return batch


def _rewritten_after(history: History, batch: Batch, config: ContextConfig, cached_ends: Sequence[int]) -> float:
    """Tokens the next request must write again because of this batch."""
    first = len(history.messages)
    for item in batch.rewrites:
        record = history.records[item.tool_use_id]
        first = min(first, record.use_msg if item.on_input else record.result_msg)
    # [issue 13] priced with the prompt-cache model: under the real cache the
    # write starts at the newest breakpoint before the first change
    # (cached_ends: the previous request's message breakpoints), not at it.
    _, written = rewrite_cost(history.msg_tokens, first, cached_ends, config.cache_model)
    return written - batch.saves


def plan_emergency(history: History, config: ContextConfig) -> Batch:
    """Everything clearable except the newest message's results: no summary could be had."""
    newest = len(history.open_results_of_last())
    rewrites = list(chain(plan_clear_results(history, config, newest), plan_clear_inputs(history, config, 0)))
    limit_budget = plan_budget(history, config, 1.0, exempt=set())
    taken = {r.tool_use_id for r in rewrites if not r.on_input}
    rewrites += [r for r in limit_budget if r.tool_use_id not in taken]
    return Batch("emergency", rewrites)
