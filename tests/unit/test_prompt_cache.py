"""The prompt-cache model against Anthropic's documented rules (context/prompt_cache.py)."""

from __future__ import annotations

import pytest

from agentls.context.prompt_cache import (FIVE_MINUTES, ONE_HOUR, AnthropicCache, Block, IdealCache,
                                          message_breakpoints, minimum_cacheable_tokens, rewrite_cost, stable_ttl)
from agentls.context.token_sums import TokenSums


def blocks(count: int, tokens: float = 100, marks: dict[int, str] | None = None, tag: str = "b") -> list[Block]:
    marks = marks or {}
    return [Block(f"{tag}{i}", tokens, marks.get(i)) for i in range(count)]


def marked(base: list[Block], marks: dict[int, str]) -> list[Block]:
    return [Block(b.key, b.tokens, marks.get(i)) for i, b in enumerate(base)]


def test_a_breakpoint_writes_its_prefix_and_the_rest_is_plain_input():
    cache = AnthropicCache(minimum_tokens=1024)
    usage = cache.request(blocks(30, marks={19: FIVE_MINUTES}), now=0)
    assert (usage.read, usage.write_5m, usage.write_1h, usage.input_tokens) == (0, 2000, 0, 1000)
    again = cache.request(blocks(30, marks={19: FIVE_MINUTES}), now=1)
    assert (again.read, again.write, again.input_tokens) == (2000, 0, 1000)
    assert again.cost() == pytest.approx(0.1 * 2000 + 1000)


def test_no_breakpoint_no_cache():
    cache = AnthropicCache()
    for now in (0, 1):
        usage = cache.request(blocks(30), now=now)
        assert (usage.read, usage.write, usage.input_tokens) == (0, 0, 3000)


def test_a_hit_within_the_lookback_window_and_a_miss_beyond_it():
    head = blocks(10, marks={9: FIVE_MINUTES})
    first = AnthropicCache(minimum_tokens=500)
    first.request(head, now=0)
    within = marked(blocks(29), {28: FIVE_MINUTES})  # breakpoint 19 blocks after the entry: 20 blocks looked at
    usage = first.request(within, now=1)
    assert usage.read == 1000 and usage.write == 1900

    second = AnthropicCache(minimum_tokens=500)
    second.request(head, now=0)
    beyond = marked(blocks(30), {29: FIVE_MINUTES})  # 20 blocks after the entry: out of reach
    usage = second.request(beyond, now=1)
    assert usage.read == 0 and usage.write == 3000
    # A second breakpoint near the old one reaches it again.
    third = AnthropicCache(minimum_tokens=500)
    third.request(head, now=0)
    usage = third.request(marked(blocks(30), {12: FIVE_MINUTES, 29: FIVE_MINUTES}), now=1)
    assert usage.read == 1000 and usage.write == 2000


def test_the_longest_entry_is_read_and_a_changed_block_invalidates_what_follows():
    cache = AnthropicCache()
    base = blocks(40, marks={9: FIVE_MINUTES, 24: FIVE_MINUTES, 39: FIVE_MINUTES})
    cache.request(base, now=0)
    changed = list(base)
    changed[30] = Block("new", 100)
    usage = cache.request(changed, now=1)
    assert usage.read == 2500 and usage.write == 1500  # up to the breakpoint before the change
    changed[5] = Block("also new", 100)
    usage = cache.request(changed, now=2)
    assert usage.read == 0 and usage.write == 4000


def test_a_prefix_below_the_minimum_is_never_cached():
    cache = AnthropicCache(minimum_tokens=1024)
    small = blocks(10, tokens=100, marks={9: FIVE_MINUTES})  # 1,000 tokens
    for now in (0, 1, 2):
        usage = cache.request(small, now=now)
        assert (usage.read, usage.write, usage.input_tokens) == (0, 0, 1000)
    assert minimum_cacheable_tokens("claude-sonnet-4-5") == 1024
    assert minimum_cacheable_tokens("claude-opus-4-5-20251101") == 4096
    assert minimum_cacheable_tokens("claude-haiku-4-5") == 4096
    assert minimum_cacheable_tokens("claude-3-5-haiku-latest") == 2048
    # The same prefix under a model with a higher minimum is not cached either.
    assert AnthropicCache().request(blocks(30, marks={29: FIVE_MINUTES}), 0,
                                    minimum_tokens=minimum_cacheable_tokens("claude-opus-4-5")).write == 0


def test_entries_expire_after_their_ttl_and_every_hit_refreshes_them():
    cache = AnthropicCache()
    request = blocks(20, marks={19: FIVE_MINUTES})
    assert cache.request(request, now=0).write == 2000
    assert cache.request(request, now=299).read == 2000  # refreshed: now lives until 599
    assert cache.request(request, now=598).read == 2000  # refreshed again: until 898
    assert cache.request(request, now=898.5).write == 2000  # expired: written again
    hour = blocks(20, marks={19: ONE_HOUR}, tag="h")
    usage = cache.request(hour, now=0)
    assert (usage.write_1h, usage.write_5m) == (2000, 0)
    assert usage.cost() == pytest.approx(2.0 * 2000)
    assert cache.request(hour, now=3000).read == 2000
    assert cache.request(hour, now=3000 + 3601).read == 0
    # A hit found by the lookback (no breakpoint on the entry) renews the entry's own TTL.
    longer = hour + blocks(5, tag="x")
    cache.request(hour, now=10_000)
    assert cache.request(marked(longer, {24: FIVE_MINUTES}), now=13_000).read == 2000
    assert cache.request(marked(longer, {24: FIVE_MINUTES}), now=16_000).read == 2000  # 1 h after 13,000


def test_writes_are_billed_at_the_ttl_of_the_breakpoint_closing_them():
    cache = AnthropicCache()
    usage = cache.request(blocks(30, marks={14: ONE_HOUR, 29: FIVE_MINUTES}), now=0)
    assert (usage.write_1h, usage.write_5m) == (1500, 1500)
    assert usage.cost() == pytest.approx(2.0 * 1500 + 1.25 * 1500)
    # After 10 minutes only the 1-hour entry is left.
    usage = cache.request(blocks(30, marks={14: ONE_HOUR, 29: FIVE_MINUTES}), now=600)
    assert (usage.read, usage.write_1h, usage.write_5m) == (1500, 0, 1500)


def test_at_most_four_breakpoints_and_one_hour_ones_first():
    cache = AnthropicCache()
    with pytest.raises(ValueError, match="maximum of 4"):
        cache.request(blocks(10, marks={i: FIVE_MINUTES for i in range(5)}), now=0)
    cache.request(blocks(10, marks={i: FIVE_MINUTES for i in range(4)}), now=0)
    with pytest.raises(ValueError, match="1h"):
        cache.request(blocks(10, marks={2: FIVE_MINUTES, 5: ONE_HOUR}), now=0)


def test_the_ideal_cache_reads_any_shared_prefix():
    ideal, real = IdealCache(), AnthropicCache()
    base = blocks(40, marks={39: FIVE_MINUTES})
    for cache in (ideal, real):
        cache.request(base, now=0)
    changed = list(base)
    changed[30] = Block("new", 100)
    assert ideal.request(changed, now=1).read == 3000
    assert real.request(changed, now=1).read == 0  # no breakpoint within 20 blocks of a live entry


def test_message_breakpoints_frontier_and_legacy():
    roles = [{"role": r} for r in ["user", "assistant"] * 10 + ["user"]]
    assert message_breakpoints(roles, None) == [18, 20]
    assert message_breakpoints(roles, 7) == [7, 18, 20]
    assert message_breakpoints(roles, 7, "legacy") == [18, 20]
    assert message_breakpoints(roles, 12, previous_frontier=7) == [7, 12, 20]  # the batch's request
    assert message_breakpoints(roles, 19) == [19, 20]  # the previous user message is behind the frontier


def test_rewrite_cost_reads_up_to_the_newest_breakpoint_before_the_change():
    tokens = [100] * 10
    assert rewrite_cost(TokenSums(tokens), 6, cached_ends=[2, 8, 9]) == (3, 700)
    assert rewrite_cost(TokenSums(tokens), 6, cached_ends=[], cache_model="anthropic") == (0, 1000)
    assert rewrite_cost(TokenSums(tokens), 6, cached_ends=[2], cache_model="ideal") == (6, 400)


def test_stable_ttl_follows_the_pauses_between_calls():
    assert stable_ttl([]) == FIVE_MINUTES
    assert stable_ttl([20.0] * 20) == FIVE_MINUTES
    assert stable_ttl([20.0] * 18 + [900.0, 1200.0]) == ONE_HOUR
    assert stable_ttl([20.0] * 18 + [7200.0, 9000.0]) == FIVE_MINUTES  # past an hour nothing survives
    assert stable_ttl([20.0], setting="1h") == ONE_HOUR
    assert stable_ttl([900.0] * 5, setting="5m") == FIVE_MINUTES
