"""What model calls cost, and a running total (the figures of `agent/cost` and `/cost`).

Prices are USD per million tokens, Anthropic's list prices, per model id (a dated
snapshot or `-latest` alias of an id is priced like it). A model the table does not
name has no price: its tokens are counted, its cost is reported as unknown, never
borrowed from another model. Overrides (ModelSettings.prices) map a model-name
fragment to any of the five prices, e.g. {"my-proxy-model": {"input": 1, "output": 2}};
they are matched before the table, longest fragment first; the key "default" prices
models that match nothing. An override for a model the table does not price starts
from zero, with cache prices derived from its input price as Anthropic derives them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from collections.abc import Mapping
from typing import Any

from ..context.usage import Usage
from .binding import base_id

# Anthropic's usual prompt-caching multipliers of the input price (5-minute write, 1-hour write, read),
# https://platform.claude.com/docs/en/about-claude/pricing ("Prompt caching"): the table's own cache prices
# win (reads are 0.05x on Opus 5.5 / Sonnet 5.5 and 0.025x on Fable / Mythos 5.1 and 5.2); these derive the
# cache prices of an override that names only an input price.
WRITE_5M, WRITE_1H, READ = 1.25, 2.0, 0.1


@dataclass(frozen=True)
class Price:
    input: float
    output: float
    cache_write: float  # 5-minute cache writes
    cache_read: float
    cache_write_1h: float | None = None  # 1-hour cache writes; None: 2 x input, as on Anthropic
    # Some models cost more per token once a request's prompt (input + cache reads and
    # writes) exceeds a size: that request is priced entirely at `long_prompt`.
    long_prompt: Price | None = None
    long_prompt_over: int = 0

    @property
    def write_1h(self) -> float:
        return WRITE_1H * self.input if self.cache_write_1h is None else self.cache_write_1h

    def for_prompt(self, prompt_tokens: int) -> Price:
        if self.long_prompt is not None and prompt_tokens > self.long_prompt_over:
            return self.long_prompt
        return self


def _p(input: float, output: float, write_5m: float, read: float, write_1h: float) -> Price:
    return Price(input, output, write_5m, read, write_1h)


_OPUS_4_5 = _p(5.0, 25.0, 6.25, 0.50, 10.0)
_OPUS_4_0 = _p(15.0, 75.0, 18.75, 1.50, 30.0)
_SONNET_4 = _p(3.0, 15.0, 3.75, 0.30, 6.0)
_FABLE_5 = _p(10.0, 50.0, 12.50, 1.0, 20.0)
_FABLE_5_1 = _p(10.0, 50.0, 12.50, 0.25, 20.0)  # reads 0.025x input
_FABLE_5_2 = _p(8.0, 40.0, 10.0, 0.20, 16.0)  # reads 0.025x input

# List prices (input, output, 5-minute cache write, cache read, 1-hour cache write), read 2026-12 from
# https://platform.claude.com/docs/en/about-claude/pricing ("Model pricing": the columns in this order but
# reads before output) and the model overview pages https://platform.claude.com/docs/en/models/<model>/overview:
# - opus-5-5: $4 / $20, writes $5 / $8, reads $0.20 (0.05x: "Cache hits and refreshes on Claude Opus 5.5 are
#   priced at 0.05x", prompt-caching page);
# - sonnet-5-5: $2 / $10, writes $2.50 / $4, reads $0.10 — 0.05x since the cut of 2026-10-07 (the overview
#   pages of September still say $0.20); models/overview.md: "prompt cache reads cost 10% of the base input
#   price (2.5% on Claude Fable 5.1 and Claude Mythos 5.1, 5% on Claude Opus 5.5 and Claude Sonnet 5.5)";
# - fable-5-1 / mythos-5-1: $10 / $50, writes $12.50 / $20, reads $0.25 (0.025x); fable-5 / mythos-5: reads $1;
# - fable-5-2 / mythos-5-2: $8 / $40, writes $10 / $16, reads $0.20 (0.025x);
# - haiku-5-5: priced by prompt size (input + cache reads + writes): up to 100,000 tokens $0.10 / $0.50,
#   writes $0.125 / $0.20, reads $0.01; above it every token of the request at $0.50 / $2.50, $0.625 / $1,
#   $0.05 ("Long context pricing");
# - the older rows as the pricing page lists them (Opus 4.1 / 4, Sonnet 4, Haiku 3.5 retired but priced).
BUILTIN_PRICES: dict[str, Price] = {
    "claude-fable-5-2": _FABLE_5_2,
    "claude-mythos-5-2": _FABLE_5_2,
    "claude-fable-5-1": _FABLE_5_1,
    "claude-mythos-5-1": _FABLE_5_1,
    "claude-fable-5": _FABLE_5,
    "claude-mythos-5": _FABLE_5,
    "claude-opus-5-5": _p(4.0, 20.0, 5.0, 0.20, 8.0),
    "claude-opus-5": _OPUS_4_5,
    "claude-opus-4-8": _OPUS_4_5,
    "claude-opus-4-7": _OPUS_4_5,
    "claude-opus-4-6": _OPUS_4_5,
    "claude-opus-4-5": _OPUS_4_5,
    "claude-opus-4-1": _OPUS_4_0,
    "claude-opus-4-0": _OPUS_4_0,
    "claude-opus-4": _OPUS_4_0,
    "claude-3-opus": _OPUS_4_0,
    "claude-sonnet-5-5": _p(2.0, 10.0, 2.50, 0.10, 4.0),
    "claude-sonnet-5": _p(2.0, 10.0, 2.50, 0.20, 4.0),
    "claude-sonnet-4-6": _SONNET_4,
    "claude-sonnet-4-5": _SONNET_4,
    "claude-sonnet-4-0": _SONNET_4,
    "claude-sonnet-4": _SONNET_4,
    "claude-3-7-sonnet": _SONNET_4,
    "claude-haiku-5-5": Price(0.10, 0.50, 0.125, 0.01, 0.20,
                              long_prompt=_p(0.50, 2.50, 0.625, 0.05, 1.0), long_prompt_over=100_000),
    "claude-haiku-4-5": _p(1.0, 5.0, 1.25, 0.10, 2.0),
    "claude-3-5-haiku": _p(0.80, 4.0, 1.0, 0.08, 1.6),
    "claude-3-haiku": _p(0.25, 1.25, 0.30, 0.03, 0.50),
}

# The minimum cacheable prompt length in tokens: shorter prompts are not cached even when marked, and no
# error says so. https://platform.claude.com/docs/en/build-with-claude/prompt-caching ("Cache limitations",
# read as of 2026-10-08): "512 tokens for Claude Fable 5.1, Claude Mythos 5.1, Claude Opus 5.5, Claude Opus 5,
# Claude Sonnet 5.5, Claude Fable 5, Claude Mythos 5, and Claude Haiku 5.5"; 2,048 for Claude Opus 4.7 and
# Claude Haiku 3.5 (and Haiku 3, an earlier version of the page); 4,096 for Claude Opus 4.6, Opus 4.5 and
# Haiku 4.5; 1,024 for Claude Opus 4.8, Sonnet 5, Sonnet 4.6, Sonnet 4.5, Opus 4.1, Opus 4, Sonnet 4 (and
# Sonnet 3.7, an earlier version). A model the page does not name (the 5.2 models among them) gets
# DEFAULT_MIN_CACHEABLE_TOKENS: the minimum most listed models share, and what the context policy assumes
# without a model (ContextConfig.min_cacheable_tokens).
DEFAULT_MIN_CACHEABLE_TOKENS = 1024
MIN_CACHEABLE_TOKENS: dict[str, int] = {
    **dict.fromkeys(("claude-fable-5-1", "claude-mythos-5-1", "claude-opus-5-5", "claude-opus-5",
                     "claude-sonnet-5-5", "claude-fable-5", "claude-mythos-5", "claude-haiku-5-5"), 512),
    **dict.fromkeys(("claude-opus-4-7", "claude-3-5-haiku", "claude-3-haiku"), 2048),
    **dict.fromkeys(("claude-opus-4-6", "claude-opus-4-5", "claude-haiku-4-5"), 4096),
    **dict.fromkeys(("claude-opus-4-8", "claude-sonnet-5", "claude-sonnet-4-6", "claude-sonnet-4-5",
                     "claude-opus-4-1", "claude-opus-4-0", "claude-opus-4", "claude-sonnet-4-0", "claude-sonnet-4",
                     "claude-3-7-sonnet"), 1024),
}

_FIELDS = ("input", "output", "cache_write", "cache_read", "cache_write_1h")
_FREE = Price(0.0, 0.0, 0.0, 0.0)


def builtin_price(model: str) -> Price | None:
    """The table's price of `model`: its id, or a dated snapshot / `-latest` alias of one."""
    name = model.lower()
    return BUILTIN_PRICES.get(name) or BUILTIN_PRICES.get(base_id(name))


def min_cacheable_tokens(model: str) -> int:
    """The shortest prompt `model` caches (its id or a dated snapshot / `-latest` alias of one); unknown models
    get DEFAULT_MIN_CACHEABLE_TOKENS."""
    name = model.lower()
    return MIN_CACHEABLE_TOKENS.get(name) or MIN_CACHEABLE_TOKENS.get(base_id(name), DEFAULT_MIN_CACHEABLE_TOKENS)


def cache_multipliers(model: str, overrides: Mapping[str, Mapping[str, float]] | None = None,
                      ) -> tuple[float, float, float] | None:
    """(read, 5-minute write, 1-hour write) prices of `model` relative to its input price (overrides first);
    None when it has no known price or a free input. A long-prompt tier keeps the ratios of the base one."""
    price = price_for(model, overrides)
    if price is None or price.input <= 0:
        return None
    return price.cache_read / price.input, price.cache_write / price.input, price.write_1h / price.input


def price_for(model: str, overrides: Mapping[str, Mapping[str, float]] | None = None) -> Price | None:
    """The price of `model`, overrides first; None when nothing prices it (price unknown)."""
    name = model.lower()
    overrides = overrides or {}
    fragments = sorted((f for f in overrides if f.lower() != "default"), key=len, reverse=True)
    chosen = next((f for f in fragments if f.lower() in name), None)
    builtin = builtin_price(model)
    if chosen is None and builtin is None:
        chosen = next((f for f in overrides if f.lower() == "default"), None)
    if chosen is None:
        return builtin
    # Any: replace() takes the names as keywords; each is one of Price's float fields (_FIELDS)
    values: dict[str, Any] = {k: float(v) for k, v in overrides[chosen].items() if k in _FIELDS}
    if builtin is not None:
        return replace(builtin, **values, long_prompt=None)
    input_price = values.get("input", 0.0)
    derived = {"cache_write": WRITE_5M * input_price, "cache_read": READ * input_price}
    return replace(_FREE, **{**derived, **values})


def cost_usd(model: str, usage: Usage, overrides: Mapping[str, Mapping[str, float]] | None = None) -> float | None:
    """What one request cost; None when the model has no known price."""
    price = price_for(model, overrides)
    if price is None:
        return None
    price = price.for_prompt(usage.prompt_tokens)
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
    unpriced: int = 0  # requests of a model without a known price (counted in tokens, not in usd)


class CostTracker:
    """Running totals of requests, tokens and dollars, overall and per model."""

    def __init__(self, model: str = "", overrides: Mapping[str, Mapping[str, float]] | None = None) -> None:
        self.model = model  # the name `agent/cost` reports; defaults to the last model used
        self._overrides = overrides
        self._by_model: dict[str, _ModelTotals] = {}
        self.cache_ttl = "5m"  # the TTL the head and frontier breakpoints use now (set by the client)

    def add(self, model: str, usage: Usage, usd: float | None = None) -> float | None:
        """Record one request; returns its cost in USD (`usd`: as priced when it was made; None: priced now,
        and None again when the model has no known price)."""
        if usd is None:
            usd = cost_usd(model, usage, self._overrides)
        totals = self._by_model.setdefault(model, _ModelTotals())
        totals.requests += 1
        totals.usage = totals.usage + usage
        if usd is None:
            totals.unpriced += 1
        else:
            totals.usd += usd
        if not self.model:
            self.model = model
        return usd

    def price(self, model: str, usage: Usage) -> float | None:
        """What one request costs at the prices in force (what `add` counts for it; None: no known price)."""
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

    @property
    def unpriced_models(self) -> list[str]:
        """Models of this session whose price is unknown: `usd` leaves their requests out."""
        return [name for name, t in self._by_model.items() if t.unpriced]

    def report(self) -> CostReport:
        """The totals so far, named after the model that answers now."""
        return CostReport(self.model, self.requests, self.usage, self.usd, self.cache_ttl,
                          tuple(self.unpriced_models))

    def by_model(self) -> dict[str, CostReport]:
        return {name: CostReport(name, t.requests, t.usage, t.usd, self.cache_ttl, (name,) if t.unpriced else ())
                for name, t in self._by_model.items()}


@dataclass(frozen=True)
class SubagentCost:
    """What one subagent (a `task` call, agent/subagents) cost; the CostReport's totals include it."""

    tool_use_id: str
    name: str  # its description
    model: str
    requests: int
    usage: Usage
    usd: float


@dataclass(frozen=True)
class CostReport:
    model: str
    requests: int
    usage: Usage
    usd: float
    cache_ttl: str = "5m"  # the TTL the head and frontier breakpoints use now
    unpriced_models: tuple[str, ...] = ()  # models of the session whose price is unknown: usd leaves them out
    subagents: tuple[SubagentCost, ...] = ()  # each subagent's share of the totals above
