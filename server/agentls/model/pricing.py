"""What model calls cost, and a running total (the figures of `agent/cost` and `/cost`).

Prices are USD per million tokens, as published by the providers (late 2025).
Overrides (ModelSettings.prices) map a model-name fragment to any of the four
prices, e.g. {"my-proxy-model": {"input": 1, "output": 2}}; they are matched
before the built-in table, longest fragment first; the key "default" prices
models that match nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from collections.abc import Mapping

from ..context.usage import Usage


@dataclass(frozen=True)
class Price:
    input: float
    output: float
    cache_write: float  # 5-minute cache writes: 1.25 × input on Anthropic
    cache_read: float  # 0.1 × input on Anthropic
    cache_write_1h: float | None = None  # 1-hour cache writes; None: 2 × input, as on Anthropic

    @property
    def write_1h(self) -> float:
        return 2 * self.input if self.cache_write_1h is None else self.cache_write_1h


# Ordered: the first fragment found in the model name wins, so retired
# versions with other prices come before their family. A family's newer
# versions are assumed to keep its latest known price (override if not).
BUILTIN_PRICES: tuple[tuple[str, Price], ...] = (
    ("opus-4-1", Price(15.0, 75.0, 18.75, 1.50)),
    ("opus-4-0", Price(15.0, 75.0, 18.75, 1.50)),
    ("opus-4-2025", Price(15.0, 75.0, 18.75, 1.50)),
    ("3-opus", Price(15.0, 75.0, 18.75, 1.50)),
    ("opus", Price(5.0, 25.0, 6.25, 0.50)),
    ("sonnet", Price(3.0, 15.0, 3.75, 0.30)),
    ("3-5-haiku", Price(0.80, 4.0, 1.0, 0.08)),
    ("haiku-3-5", Price(0.80, 4.0, 1.0, 0.08)),
    ("3-haiku", Price(0.25, 1.25, 0.30, 0.03)),
    ("haiku", Price(1.0, 5.0, 1.25, 0.10)),
    # DeepSeek's Anthropic-compatible endpoint: cache misses cost input, hits are cheap.
    ("deepseek", Price(0.28, 0.42, 0.28, 0.028)),
)
# Unknown models are priced like Sonnet: a middle estimate rather than zero.
DEFAULT_PRICE = Price(3.0, 15.0, 3.75, 0.30)

_FIELDS = ("input", "output", "cache_write", "cache_read", "cache_write_1h")


def price_for(model: str, overrides: Mapping[str, Mapping[str, float]] | None = None) -> Price:
    name = model.lower()
    overrides = overrides or {}
    fragments = sorted((f for f in overrides if f.lower() != "default"), key=len, reverse=True)
    chosen = next((f for f in fragments if f.lower() in name), None)
    builtin = next((price for fragment, price in BUILTIN_PRICES if fragment in name), None)
    if chosen is None and builtin is None:
        chosen = next((f for f in overrides if f.lower() == "default"), None)
    base = builtin or DEFAULT_PRICE
    if chosen is None:
        return base
    return replace(base, **{k: float(v) for k, v in overrides[chosen].items() if k in _FIELDS})


def cost_usd(model: str, usage: Usage, overrides: Mapping[str, Mapping[str, float]] | None = None) -> float:
    price = price_for(model, overrides)
    return (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + (usage.cache_creation_input_tokens - usage.cache_write_1h_tokens) * price.cache_write
        + usage.cache_write_1h_tokens * price.write_1h
        + usage.cache_read_input_tokens * price.cache_read
    ) / 1_000_000


@dataclass
class _ModelTotals:
    requests: int = 0
    usage: Usage = Usage()
    usd: float = 0.0


class CostTracker:
    """Running totals of requests, tokens and dollars, overall and per model."""

    def __init__(self, model: str = "", overrides: Mapping[str, Mapping[str, float]] | None = None) -> None:
        self.model = model  # the name `agent/cost` reports; defaults to the last model used
        self._overrides = overrides
        self._by_model: dict[str, _ModelTotals] = {}
        self.cache_ttl = "5m"  # the TTL the head and frontier breakpoints use now (set by the client)

    def add(self, model: str, usage: Usage, usd: float | None = None) -> float:
        """Record one request; returns its cost in USD (`usd`: as already priced when it was made)."""
        if usd is None:
            usd = cost_usd(model, usage, self._overrides)
        totals = self._by_model.setdefault(model, _ModelTotals())
        totals.requests += 1
        totals.usage = totals.usage + usage
        totals.usd += usd
        if not self.model:
            self.model = model
        return usd

    def price(self, model: str, usage: Usage) -> float:
        """What one request costs at the prices in force (what `add` counts for it)."""
        return cost_usd(model, usage, self._overrides)

    def reset(self) -> None:
        self._by_model.clear()

    def retarget(self, model: str, overrides: Mapping[str, Mapping[str, float]] | None) -> None:
        """Another model answers from now on: name it, price its requests; the totals so far stay."""
        self.model, self._overrides = model, overrides

    @property
    def requests(self) -> int:
        return sum(t.requests for t in self._by_model.values())

    @property
    def usage(self) -> Usage:
        total = Usage()
        for totals in self._by_model.values():
            total = total + totals.usage
        return total

    @property
    def usd(self) -> float:
        return sum(t.usd for t in self._by_model.values())

    def report(self) -> CostReport:
        """The totals so far, named after the model that answers now."""
        return CostReport(self.model, self.requests, self.usage, self.usd, self.cache_ttl)

    def by_model(self) -> dict[str, CostReport]:
        return {name: CostReport(name, t.requests, t.usage, t.usd, self.cache_ttl) for name, t in self._by_model.items()}


@dataclass(frozen=True)
class CostReport:
    model: str
    requests: int
    usage: Usage
    usd: float
    cache_ttl: str = "5m"  # the TTL the head and frontier breakpoints use now
