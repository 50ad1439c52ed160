"""Compaction timed by its price (compaction_timing.py) on a model that binds thinking, generated sessions:
a summary comes before the window forces one only when the rent already paid and the expected remaining
session both cover its price; a session that fits and ends early is never compacted; dearer summaries come
no sooner; the summary call reads its prefix from the cache (the frontier sits at the cut)."""

from hypothesis import given, settings, strategies as st

from agentls.context import ContextConfig, ContextEngine, MemoryStore
from agentls.context.compaction_timing import compaction_price, kept_after, summary_input_limit, summary_now, \
    unread_before
from agentls.context.policy import expected_remaining
from agentls.context.structure import request_problems
from agentls.context.tokens import Usage
from synth import tool_call, results, user

SIZES = st.lists(st.integers(min_value=200, max_value=16_000), min_size=1, max_size=90)  # result sizes (chars)
PRICES = st.sampled_from([(0.05, 1.25, 5.0), (0.10, 1.25, 5.0), (0.05, 2.0, 5.0), (0.05, 1.25, 8.0)])


def bound_engine(window: int, read: float = 0.05, write: float = 1.25, output: float = 5.0,
                 **more) -> ContextEngine:
    config = ContextConfig(window=window, system_tokens=3_000, thinking_bound=True, server_compaction=True,
                           read_price=read, write_price=write, output_price=output, **more)
    engine = ContextEngine(config=config, store=MemoryStore())
    engine.append(user("fix the failing test"))
    return engine


def run(sizes, window=200_000, read=0.05, write=1.25, output=5.0, **more):
    """A tool call and its result per request; a due compaction is made as the agent makes it on the
    server (the turns before the cut, the tail kept). Returns the engine and, per request, (utilization
    before preparing it, the compactions so far, the rent the clock had paid, the price and rent the rule saw)."""
    engine = bound_engine(window, read, write, output, **more)
    seen = []
    for n, size in enumerate(sizes):
        call, tool_use_id = tool_call("run_shell", {"command": f"pytest -k case{n}"})
        engine.append(call)
        engine.append(results([(tool_use_id, f"case{n} line\n" * (size // 11))]))
        config, history = engine.config, engine.history
        summary = engine.expected_summary_tokens()
        paid, calls, before = engine.compaction_clock.rent_paid, engine.calls, engine.utilization()
        # the price as the rule sees it (compaction_timing.summary_now: the fold once the rent could reach it)
        option = summary_now(history, config, summary, engine.sent_frontier, fold=paid >= output * summary)
        price, kept = option if option is not None else (None, 0.0)
        rent = read * (history.total_tokens - kept)
        prepared = engine.prepare(now=10.0 * n)
        if prepared.compaction_due:
            upto = engine.compaction_cut()
            engine.apply_server_compaction({"type": "compaction", "content": "summary " * 500}, "auto", upto=upto)
            prepared = engine.prepare(now=10.0 * n, allow_compaction=False)
        assert not request_problems(prepared.messages)
        seen.append((before, engine.compactions, paid, price, rent, calls))
        engine.record_usage(Usage(cache_read_input_tokens=engine.raw_estimate), now=10.0 * n)
    return engine, seen


def early_compactions(engine, seen):
    """(paid, price, rent, calls) of every compaction made below the window's threshold."""
    found, before = [], 0
    for utilization, compactions, paid, price, rent, calls in seen:
        if compactions > before and price is not None and utilization < engine.config.compact_at:
            found.append((paid, price, rent, calls))
        before = compactions
    return found


@settings(max_examples=40, deadline=None)
@given(sizes=SIZES, prices=PRICES)
def test_a_summary_comes_early_only_when_paid_rent_and_expected_saving_cover_its_price(sizes, prices):
    read, write, output = prices
    engine, seen = run(sizes, read=read, write=write, output=output)
    for paid, price, rent, calls in early_compactions(engine, seen):
        assert paid >= price > 0  # ski rental: bought with rent already paid
        assert (expected_remaining(calls) - 1) * rent >= price  # and it pays over the expected rest


def test_a_short_session_that_fits_is_never_compacted():
    engine, seen = run([8_000] * 15)
    assert engine.compactions == 0
    engine, seen = run([16_000] * 20)  # 80K tokens at 200K: the rent paid stays below a summary's price
    assert engine.compactions == 0


def test_a_long_session_compacts_before_the_window_forces_it_and_stays_valid():
    engine, seen = run([16_000] * 90)
    assert engine.compactions >= 1
    assert max(u for u, *_ in seen) < engine.config.compact_at  # never waited for the threshold
    off, _ = run([16_000] * 90, priced_compaction=False)
    assert off.compactions < engine.compactions


@settings(max_examples=25, deadline=None)
@given(sizes=SIZES)
def test_dearer_summaries_come_no_sooner(sizes):
    def first(**prices):
        _, seen = run(sizes, **prices)
        return next((i for i, (_, c, *_) in enumerate(seen) if c), len(seen))

    base = first()
    assert base <= first(output=10.0)
    assert base <= first(write=2.0)


def test_the_frontier_sits_before_the_cut_so_the_summary_call_reads_its_prefix():
    engine = bound_engine(64_000)
    for n in range(30):
        call, tool_use_id = tool_call("read_file", {"path": f"src/m{n}.py"})
        engine.append(call)
        engine.append(results([(tool_use_id, f"def f{n}(): pass\n" * 60)]))
        prepared = engine.prepare(now=10.0 * n)
        cut = engine.compaction_cut()
        if cut is not None:
            assert prepared.frontier == cut - 1
        assert prepared.previous_frontier is None  # the previous user message keeps its breakpoint
        engine.record_usage(Usage(cache_read_input_tokens=engine.raw_estimate), now=10.0 * n)
        if prepared.compaction_due:
            break


def test_the_window_forces_a_summary_only_when_the_request_would_not_fit():
    """A session that ends at 95% of the usable window is not summarised (a fixed 85% threshold summarised
    it for nothing); one more result that would overflow it is, and the request then fits."""
    engine, seen = run([24_000] * 4, window=32_000)
    assert engine.compactions == 0
    assert 0.85 < engine.utilization() <= 1.0
    engine, seen = run([24_000] * 5, window=32_000)
    assert engine.compactions == 1
    assert seen[-1][0] > 1.0  # what the fifth request would have been without the summary
    assert engine.utilization() <= 1.0


def test_a_summary_that_can_carry_the_whole_history_is_priced_as_reading_it_from_the_cache():
    # compact.build_summary_request sends the whole history (an extension of the last request, read from its
    # cache) when it fits the summary call; only past that does it stop at the cut and write the messages
    # between the cached frontier and the cut. The price once counted that write in both cases.
    config = ContextConfig(window=32_000, system_tokens=3_000, priced_compaction=False, clear_at=10.0,
                           snip_at=10.0, budget_soft_at=10.0, budget_hard_at=10.0)
    engine = ContextEngine(config=config, store=MemoryStore())
    engine.append(user("fix the failing test"))
    prices = []
    for n in range(40):
        call, tool_use_id = tool_call("read_file", {"path": f"src/m{n}.py"})
        engine.append(call)
        engine.append(results([(tool_use_id, f"def f{n}(): pass\n" * 300)]))
        history, summary, held = engine.history, engine.expected_summary_tokens(), engine.sent_frontier
        option = summary_now(history, config, summary, held, fold=False)
        if option is not None:
            cut, kept = kept_after(history, config, summary)
            gap = config.write_price * unread_before(history, cut, held)
            fits = history.total_tokens <= summary_input_limit(config)
            assert option == (compaction_price(config, summary, kept) + (0.0 if fits else gap), kept)
            prices.append((fits, gap))
        prepared = engine.prepare(now=10.0 * n)
        if prepared.compaction_due:
            break
        engine.record_usage(Usage(cache_read_input_tokens=engine.raw_estimate), now=10.0 * n)
    assert any(fits and gap > 0 for fits, gap in prices), "a gap that the whole history's summary does not write"
    assert any(not fits and gap > 0 for fits, gap in prices), "past the limit it is written"
