"""What each subagent cost: its requests, tokens and dollars, by its `task` call, for /cost and the meter.

A child has its own model client (its own CostTracker); when it ends, its totals are
entered here, once, and saved with the session as usage records that name it (SUBAGENT
fact), so a restart reads them back here rather than into the parent's own totals.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...context.usage import Usage
from ...model.pricing import CostReport, SubagentCost
from ..tools.base import plural

SUBAGENT = "subagent"  # a usage record's fact: {"id": the task call, "name": its description, "requests"}


def subagent_fact(tool_use_id: str, name: str, requests: int) -> dict[str, Any]:
    """The fact of the one usage record a subagent leaves: its totals over `requests` requests."""
    return {SUBAGENT: {"id": tool_use_id, "name": name, "requests": requests}}


class SubagentLedger:
    """The subagents of one conversation, in the order they ended."""

    def __init__(self) -> None:
        self._by_call: dict[str, SubagentCost] = {}

    def reset(self) -> None:
        self._by_call.clear()

    def add(self, tool_use_id: str, name: str, model: str, requests: int, usage: Usage, usd: float) -> None:
        known = self._by_call.get(tool_use_id)
        if known is not None:  # several usage records of one child (a restart reads each request's)
            requests, usage, usd = known.requests + requests, known.usage + usage, known.usd + usd
        self._by_call[tool_use_id] = SubagentCost(tool_use_id, name, model, requests, usage, usd)

    def restore(self, model: str, usage: Usage, usd: float | None, fact: Any) -> bool:
        """A usage record a subagent's request left (False: the fact is not one, the caller counts it)."""
        if not isinstance(fact, Mapping) or not isinstance(fact.get("id"), str):
            return False
        requests = fact.get("requests")
        self.add(fact["id"], str(fact.get("name", "")), model, requests if isinstance(requests, int) else 1, usage,
                 usd or 0.0)
        return True

    @property
    def items(self) -> tuple[SubagentCost, ...]:
        return tuple(self._by_call.values())

    def rolled_into(self, report: CostReport) -> CostReport:
        """The parent's own costs with every subagent's added, each subagent named."""
        items = self.items
        if not items:
            return report
        usage = report.usage
        for item in items:
            usage = usage + item.usage
        return CostReport(report.model, report.requests + sum(i.requests for i in items), usage,
                          report.usd + sum(i.usd for i in items), report.cache_ttl, report.unpriced_models, items)


def tokens(usage: Usage) -> int:
    """Every token of a usage: input, output, cache read and written."""
    return usage.input_tokens + usage.output_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens


def cost_lines(report: CostReport) -> list[str]:
    """/cost's lines about the subagents (the terminal's and ACP's): each one's tokens and dollars, then the sum;
    [] when none ran. The report's totals already include them."""
    items = report.subagents
    if not items:
        return []
    total = Usage()
    for item in items:
        total = total + item.usage

    def line(name: str, requests: int, usage: Usage, usd: float) -> str:
        return (f"{name}: {plural(requests, 'request')} · {tokens(usage):,} tokens ({usage.input_tokens:,} in / "
                f"{usage.output_tokens:,} out / {usage.cache_read_input_tokens:,} cache read / "
                f"{usage.cache_creation_input_tokens:,} cache written) · ${usd:.4f}")

    rows = [line(f"subagent “{item.name}” ({item.model})", item.requests, item.usage, item.usd) for item in items]
    name = f"sum of {len(items)} subagent{'s' if len(items) != 1 else ''}"
    return [*rows, line(name, sum(i.requests for i in items), total, sum(i.usd for i in items))]
