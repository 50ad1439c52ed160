"""L1: as utilization rises, old large results are cut to a budget (head + tail)."""

from __future__ import annotations

from collections.abc import Iterator

from .config import ContextConfig
from .history import History
from .rewrite import BUDGET, Rewrite


def budget_limit(config: ContextConfig, utilization: float) -> int | None:
    if utilization >= config.budget_hard_at:
        return config.budget_hard_chars
    if utilization >= config.budget_soft_at:
        return config.budget_soft_chars
    return None


def plan_budget(history: History, config: ContextConfig, utilization: float,
                exempt: set[str]) -> Iterator[Rewrite]:
    limit = budget_limit(config, utilization)
    if limit is None:
        return
    for tool_use_id in history.large:
        record = history.records[tool_use_id]
        if tool_use_id in exempt or record.chars <= limit:
            continue
        yield Rewrite(tool_use_id, BUDGET, config.tokens(record.chars - limit), limit)
