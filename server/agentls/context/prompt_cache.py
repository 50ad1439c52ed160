"""The prompt cache as Anthropic bills it, and the ideal cache for comparison.

One model for the mock API, the replay and the policy's pricing of a rewrite.
A request is a flat list of blocks in the order the API caches them: tools,
then system, then messages. The documented rules:

- an entry exists only for a prefix ending at a ``cache_control`` breakpoint
  (at most 4 per request) whose length reaches the model's minimum;
- a request reads the longest live entry found at one of its breakpoints or
  within ``LOOKBACK_BLOCKS`` blocks before it;
- from there up to the last breakpoint it writes (1.25x for a 5-minute TTL,
  2x for a 1-hour TTL: each stretch is billed at the TTL of the breakpoint
  closing it; 1-hour breakpoints must come before 5-minute ones); what
  follows the last breakpoint is plain input (1x); reads cost 0.1x;
- an entry expires after its TTL; every request that reaches it refreshes it.

Creating an entry at a breakpoint inside the stretch already read is free
(those tokens were read, not written).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from collections.abc import Hashable, Iterable, Mapping, Sequence

from .token_sums import TokenSums

FIVE_MINUTES, ONE_HOUR = "5m", "1h"
TTL_SECONDS = {FIVE_MINUTES: 300.0, ONE_HOUR: 3600.0}
READ_PRICE = 0.1
WRITE_PRICE = {FIVE_MINUTES: 1.25, ONE_HOUR: 2.0}
LOOKBACK_BLOCKS = 20
MAX_BREAKPOINTS = 4
CACHE_MODELS = ("anthropic", "ideal")

# Minimum cacheable prefix per model family (first fragment found wins).
_MINIMUM_TOKENS: tuple[tuple[str, int], ...] = (
    ("opus-4-5", 4096), ("opus-4-6", 4096), ("haiku-4-5", 4096),
    ("3-5-haiku", 2048), ("haiku-3-5", 2048), ("3-haiku", 2048), ("haiku", 2048),
)
DEFAULT_MINIMUM_TOKENS = 1024  # Sonnet 3.7 / 4 / 4.5, Opus 4 / 4.1


def minimum_cacheable_tokens(model: str) -> int:
    name = model.lower()
    return next((tokens for fragment, tokens in _MINIMUM_TOKENS if fragment in name), DEFAULT_MINIMUM_TOKENS)


@dataclass(frozen=True)
class Block:
    """One cacheable unit: its identity, its size, and its breakpoint TTL if it carries one."""
    key: Hashable
    tokens: float
    ttl: str | None = None


@dataclass(frozen=True)
class CacheUsage:
    input_tokens: float = 0.0
    read: float = 0.0
    write_5m: float = 0.0
    write_1h: float = 0.0

    @property
    def write(self) -> float:
        return self.write_5m + self.write_1h

    @property
    def total(self) -> float:
        return self.input_tokens + self.read + self.write

    def cost(self, read_price: float = READ_PRICE, write_price: float = WRITE_PRICE[FIVE_MINUTES],
             write_1h_price: float = WRITE_PRICE[ONE_HOUR]) -> float:
        """In units of the base input price, at a model's cache prices (ContextConfig.read_price /
        write_price, pricing.cache_multipliers; the defaults are the documented 0.1x / 1.25x / 2x)."""
        return (self.input_tokens + read_price * self.read
                + write_price * self.write_5m + write_1h_price * self.write_1h)


def breakpoint_problem(ttls: Sequence[str | None]) -> str | None:
    """Why the API would refuse these breakpoints, or None."""
    marks = [t for t in ttls if t is not None]
    if len(marks) > MAX_BREAKPOINTS:
        return f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. Found {len(marks)}."
    if any(t not in TTL_SECONDS for t in marks):
        return "cache_control.ttl must be '5m' or '1h'"
    if FIVE_MINUTES in marks and ONE_HOUR in marks[marks.index(FIVE_MINUTES):]:
        return "a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block"
    return None


def _prefix_keys(blocks: Sequence[Block]) -> list[int]:
    keys, running = [], 0
    for block in blocks:
        running = hash((running, block.key))
        keys.append(running)
    return keys


class AnthropicCache:
    """The cache of one API account, over time (the caller supplies the clock)."""

    def __init__(self, minimum_tokens: int = DEFAULT_MINIMUM_TOKENS, lookback: int = LOOKBACK_BLOCKS) -> None:
        self.minimum_tokens = minimum_tokens
        self.lookback = lookback
        self._entries: dict[int, tuple[float, float]] = {}  # prefix key -> (expiry time, TTL seconds)
        self._prune_at = 256

    def _live(self, key: int, now: float) -> bool:
        entry = self._entries.get(key)
        return entry is not None and entry[0] > now

    def request(self, blocks: Sequence[Block], now: float, minimum_tokens: int | None = None) -> CacheUsage:
        """Bill one request sent at ``now`` (seconds) and update the cache."""
        problem = breakpoint_problem([b.ttl for b in blocks])
        if problem:
            raise ValueError(problem)
        minimum = self.minimum_tokens if minimum_tokens is None else minimum_tokens
        keys = _prefix_keys(blocks)
        ends, total = [], 0.0
        for block in blocks:
            total += block.tokens
            ends.append(total)
        marks = [i for i, b in enumerate(blocks) if b.ttl is not None and ends[i] >= minimum]
        read_end = -1
        for mark in marks:
            for position in range(mark, max(-1, mark - self.lookback), -1):
                if position <= read_end:
                    break
                if self._live(keys[position], now):
                    read_end = position
                    break
        read = ends[read_end] if read_end >= 0 else 0.0
        if read_end >= 0:
            self._refresh(keys[read_end], now, self._entries[keys[read_end]][1])  # a hit renews its own TTL
        written = {FIVE_MINUTES: 0.0, ONE_HOUR: 0.0}
        done = read
        for mark in marks:
            ttl = blocks[mark].ttl
            assert ttl is not None
            if ends[mark] > done:
                written[ttl] += ends[mark] - done
                done = ends[mark]
            self._refresh(keys[mark], now, TTL_SECONDS[ttl])
        self._forget_expired(now)
        return CacheUsage(input_tokens=total - done, read=read,
                          write_5m=written[FIVE_MINUTES], write_1h=written[ONE_HOUR])

    def _refresh(self, key: int, now: float, seconds: float) -> None:
        # An entry written with a 1-hour TTL keeps it when a 5-minute breakpoint reaches it.
        old = self._entries.get(key)
        if old is not None and old[0] > now:
            seconds = max(seconds, old[1])
        self._entries[key] = (now + seconds, seconds)

    def _forget_expired(self, now: float) -> None:
        if len(self._entries) > self._prune_at:
            self._entries = {k: e for k, e in self._entries.items() if e[0] > now}
            self._prune_at = max(256, 2 * len(self._entries))  # amortized O(1) per request


class IdealCache:
    """Whatever prefix a request shares with the previous one is read; the rest is written (5 minutes)."""

    def __init__(self) -> None:
        self._previous: list[int] = []

    def request(self, blocks: Sequence[Block], now: float, minimum_tokens: int | None = None) -> CacheUsage:
        keys = _prefix_keys(blocks)
        shared = 0
        for old, new in zip(self._previous, keys):
            if old != new:
                break
            shared += 1
        self._previous = keys
        read = sum(b.tokens for b in blocks[:shared])
        return CacheUsage(read=read, write_5m=sum(b.tokens for b in blocks[shared:]))


def new_cache(kind: str, minimum_tokens: int = DEFAULT_MINIMUM_TOKENS) -> AnthropicCache | IdealCache:
    if kind == "anthropic":
        return AnthropicCache(minimum_tokens)
    if kind == "ideal":
        return IdealCache()
    raise ValueError(f"unknown cache model {kind!r}; choose one of {', '.join(CACHE_MODELS)}")


_UNCACHEABLE = ("thinking", "redacted_thinking")


def can_carry_breakpoint(block: Any) -> bool:
    """Thinking blocks and empty text cannot carry cache_control."""
    if not isinstance(block, dict) or block.get("type") in _UNCACHEABLE:
        return False
    return block.get("type") != "text" or bool(block.get("text"))


# -- where the breakpoints go (message indices; the head is the system prompt) ----

PLACEMENTS = ("frontier", "legacy")


def message_breakpoints(messages: Sequence[Mapping[str, Any]], frontier: int | None,
                        placement: str = "frontier", previous_frontier: int | None = None) -> list[int]:
    """Indices of the messages whose last block carries a breakpoint, oldest first (at most 3).

    ``frontier``: one breakpoint on the stable frontier, so a batch of
    rewrites after it still reads everything before it; then the last
    message (written each call) and the user message before it (where the
    previous call's tail was: read even when the newest exchange added more
    blocks than the lookback). When a batch has just moved the frontier
    forward, the request must read the entry at the old one
    (``previous_frontier``): that breakpoint replaces the previous user
    message's, whose entry the batch invalidated anyway. ``legacy`` is the
    placement before the frontier existed (its fourth breakpoint went to the
    tool definitions).
    """
    if not messages:
        return []
    last = len(messages) - 1
    previous_user = next((i for i in range(last - 1, -1, -1) if messages[i].get("role") == "user"), None)
    if placement != "frontier" or frontier is None or not 0 <= frontier < last:
        return [last] if previous_user is None else [previous_user, last]
    if previous_frontier is not None and 0 <= previous_frontier < frontier:
        return [previous_frontier, frontier, last]
    # A previous user message at or before the frontier adds nothing: the frontier's lookback reaches it.
    return [frontier, last] if previous_user is None or previous_user <= frontier else [frontier, previous_user, last]


def stable_ttl(gaps: Sequence[float], setting: str = "auto", long_gap_share: float = 0.1) -> str:
    """The TTL of the breakpoints on the fixed head and the stable frontier.

    A 1-hour write costs 0.75x more than a 5-minute one, once per stable
    prefix; every pause between 5 minutes and an hour then saves writing
    that prefix again (1.15x). With a stable prefix living about ten calls,
    the hour pays once about one gap in ten is such a pause (``long_gap_share``).
    The tail breakpoints always use 5 minutes: they are written every call.
    """
    if setting in TTL_SECONDS:
        return setting
    long = sum(1 for gap in gaps if TTL_SECONDS[FIVE_MINUTES] < gap <= TTL_SECONDS[ONE_HOUR])
    return ONE_HOUR if gaps and long >= long_gap_share * len(gaps) else FIVE_MINUTES


def rewrite_cost(msg_tokens: TokenSums, first_changed: int, cached_ends: Iterable[int],
                 cache_model: str = "anthropic") -> tuple[int, float]:
    """What the next request does if a batch first changes message ``first_changed``:
    (messages read from the cache, tokens written after them).

    ``cached_ends``: messages whose prefix the cache holds (the previous
    request's message breakpoints). Under the real cache the request reads
    up to the newest of them before the change and writes everything after;
    under the ideal cache it reads right up to the change.
    """
    if cache_model == "ideal":
        read_to = first_changed
    else:
        read_to = max((end + 1 for end in cached_ends if end < first_changed), default=0)
    return read_to, float(msg_tokens.between(read_to, len(msg_tokens)))  # a range sum: not the tail's length
