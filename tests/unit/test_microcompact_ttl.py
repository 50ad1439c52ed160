"""Issue 22, point 4: microcompact knows the TTL of the cache it judges.

With the 1-hour TTL on the head and the stable frontier, a 5-minute pause is
not a cold cache: the aggressive idle clearing waits for the hour. Only the
tail's 5-minute entries have expired then, so rewrites after the frontier are
free (a "cold" batch of what the layers would rewrite anyway), and nothing
more. With the 5-minute TTL nothing changes.
"""

from __future__ import annotations

from agentls.context import ContextConfig, ContextEngine, MemoryStore
from agentls.context.blocks import result_text
from agentls.context.microcompact import idle_gap, is_idle, tail_expired
from agentls.context.usage import Usage
from synth import read_turn, user

OFF = 10.0
MINUTE = 60.0
HOUR = 3600.0


def engine_with(**settings) -> ContextEngine:
    base = dict(window=20_000, output_reserve=0, clear_at=OFF, snip_at=OFF, budget_soft_at=OFF,
                budget_hard_at=OFF, compact_at=OFF, min_batch_tokens=0, batch_payoff=0.0,
                idle_gap_seconds=300, idle_keep_recent=5)
    base.update(settings)
    engine = ContextEngine(config=ContextConfig(**base), store=MemoryStore())
    engine.append(user("start"))
    return engine


def called_at(engine: ContextEngine, now: float, ttl: str) -> None:
    """A model call answered at `now` whose head and frontier breakpoints carried `ttl`."""
    engine.prepare(now)
    engine.record_usage(Usage(cache_read_input_tokens=engine.raw_estimate), now, cache_ttl=ttl)
    engine.append({"role": "assistant", "content": [{"type": "text", "text": "done"}]})
    engine.append(user("still there?"))


def bodies_left(engine: ContextEngine, ids: list[str]) -> list[int]:
    return [n for n, i in enumerate(ids) if result_text(engine.history.result_block(i)) == f"body {n}\n" * 100]


def eight_results(engine: ContextEngine) -> list[str]:
    return [read_turn(engine, f"m{i}.py", f"body {i}\n" * 100) for i in range(8)]


def test_the_idle_gap_is_the_ttl_of_the_cached_prefix():
    config = ContextConfig(idle_gap_seconds=300)
    assert idle_gap(config, "5m") == 300 and idle_gap(config, "1h") == HOUR
    assert is_idle(config, 6 * MINUTE, 0.0, "5m") and not is_idle(config, 6 * MINUTE, 0.0, "1h")
    assert is_idle(config, HOUR, 0.0, "1h") and not is_idle(config, 10.0, None, "5m")
    assert tail_expired(config, 6 * MINUTE, 0.0) and not tail_expired(config, 4 * MINUTE, 0.0)


def test_a_five_minute_pause_under_the_one_hour_ttl_is_not_a_cold_cache():
    engine = engine_with()
    ids = eight_results(engine)
    called_at(engine, 0.0, "1h")
    prepared = engine.prepare(6 * MINUTE)
    assert bodies_left(engine, ids) == list(range(8)), "nothing is cleared for idleness under the hour"
    assert prepared.batch is None and engine.stats["microcompact"].count == 0


def test_the_same_pause_under_the_five_minute_ttl_microcompacts():
    engine = engine_with()
    ids = eight_results(engine)
    called_at(engine, 0.0, "5m")
    prepared = engine.prepare(6 * MINUTE)
    assert bodies_left(engine, ids) == [3, 4, 5, 6, 7] and prepared.batch.reason == "idle"
    assert engine.stats["microcompact"].count == 3


def test_past_the_hour_the_one_hour_cache_is_cold_too():
    engine = engine_with()
    ids = eight_results(engine)
    called_at(engine, 0.0, "1h")
    prepared = engine.prepare(HOUR + 1)
    assert bodies_left(engine, ids) == [3, 4, 5, 6, 7] and prepared.batch.reason == "idle"


def test_under_the_hour_a_deferred_batch_after_the_frontier_is_free_but_nothing_more():
    # Clearing keeps the 6 newest results; its batch is priced (payoff 1): deferred while the tail is cached.
    engine = engine_with(clear_at=0.0, clear_keep_recent=6, clear_recent_fraction=1.0, batch_payoff=1.0)
    ids = [read_turn(engine, f"m{i}.py", f"body {i}\n" * 100) for i in range(2)]
    called_at(engine, 0.0, "1h")  # cached: from now on a rewrite has a price
    ids += [read_turn(engine, f"m{i}.py", f"body {i}\n" * 100) for i in range(2, 8)]
    deferred = engine.prepare(10.0)
    assert deferred.batch is None and bodies_left(engine, ids) == list(range(8)), "priced: it waits"
    engine.record_usage(Usage(cache_read_input_tokens=engine.raw_estimate), 10.0, cache_ttl="1h")
    engine.append({"role": "assistant", "content": [{"type": "text", "text": "ok"}]})
    engine.append(user("back after a coffee"))
    prepared = engine.prepare(10.0 + 6 * MINUTE)  # the tail's 5-minute entries are gone; the frontier's are not
    assert prepared.batch.reason == "cold"
    assert bodies_left(engine, ids) == [2, 3, 4, 5, 6, 7], "what clearing keeps, not microcompact's five"
    assert engine.stats["microcompact"].count == 0 and engine.stats["clear"].count == 2
