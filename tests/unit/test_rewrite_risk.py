"""The risk budget (risk.py): a short session that fits the window is never made dearer than sending
everything by more than ContextConfig.rewrite_risk, wherever it ends; without the budget it was."""

from hypothesis import given, settings, strategies as st

from agentls.context import ContextConfig, ContextEngine, MemoryStore
from agentls.context.engine_state import engine_state, message_row, restore
from agentls.context.risk import RiskLedger
from agentls.context.tokens import Usage
from agentls.evaluation.replay import is_call, replay_trace
from agentls.evaluation.shaped_traces import short_session
from synth import assistant_text, read_turn, user

SHARE = ContextConfig().rewrite_risk
SEEDS = (4, 22, 27, 58)  # without the budget: 1.086x / 1.087x sending everything at 64K, 1.076x / 1.096x at 200K


def ratios(messages, window, config=None):
    """default / none for the session ended after each request (the reply to it included)."""
    out = []
    for index in range(len(messages)):
        if is_call(messages, index):
            prefix = messages[:index + 2]
            ours = replay_trace("t", prefix, "default", window, config=config).cost
            everything = replay_trace("t", prefix, "none", window).cost
            out.append(ours / everything)
    return out


def test_a_short_session_that_fits_ends_anywhere_at_most_the_share_dearer_than_sending_everything():
    assert SHARE is not None and 0 < SHARE <= 0.1
    for seed in SEEDS:
        messages = short_session(seed)["messages"]
        for window in (64_000, 200_000):
            worst = max(ratios(messages, window))
            assert worst <= 1 + SHARE, (seed, window, worst)


def test_without_the_budget_the_same_sessions_lose_more():
    unguarded = ContextConfig(cache_model="anthropic", rewrite_risk=None)
    worst = max(max(ratios(short_session(seed)["messages"], window, unguarded))
                for seed in SEEDS for window in (64_000, 200_000))
    assert worst > 1 + SHARE


def run(sizes, window, risk=SHARE):
    config = ContextConfig(window=window, system_tokens=3_000, rewrite_risk=risk)
    engine = ContextEngine(config=config, store=MemoryStore())
    engine.append(user("start"))
    budgets = []
    for n, size in enumerate(sizes):
        read_turn(engine, f"src/f{n % 5}.py", f"{n} " * (size // 2))
        budget = engine.risk.budget(config.rewrite_risk or 0.0)
        everything = engine.estimate() + engine.risk.removed
        prepared = engine.prepare(now=10.0 * n)
        budgets.append((prepared.batch, budget, everything))
        engine.record_usage(Usage(cache_read_input_tokens=engine.raw_estimate, output_tokens=200), now=10.0 * n)
        engine.append(assistant_text(f"step {n}"))
        engine.append(user("go on"))
    return engine, budgets


@settings(max_examples=40, deadline=None)
@given(sizes=st.lists(st.integers(min_value=200, max_value=16_000), min_size=1, max_size=40),
       window=st.sampled_from([64_000, 200_000]))
def test_every_payback_batch_below_the_threshold_fits_the_budget_of_its_moment(sizes, window):
    engine, budgets = run(sizes, window)
    threshold = engine.config.compact_at * engine.config.effective_window
    for batch, budget, everything in budgets:
        if batch is not None and batch.reason == "payback" and everything < threshold:
            assert batch.price <= budget


def test_the_budget_holds_the_first_batch_back_until_the_session_can_cover_it():
    def paybacks(risk):
        _, budgets = run([12_000] * 30, 200_000, risk)
        return [i for i, (batch, _, _) in enumerate(budgets) if batch is not None and batch.reason == "payback"]

    guarded, unguarded = paybacks(SHARE), paybacks(None)
    assert guarded and unguarded and guarded[0] > unguarded[0]


def test_the_ledger_counts_what_sending_everything_costs_and_what_the_batches_banked():
    ledger = RiskLedger()
    ledger.request(1_000, 1_000, read=0.1, write=1.25, output_cost=50)  # all new: written
    assert ledger.spent == 1_250 + 50 and ledger.banked == 0
    ledger.batch(saves=400, price=100)
    ledger.request(800, 200, read=0.1, write=1.25)  # 600 read, 200 written; sending everything read 400 more
    assert ledger.spent == 1_300 + 0.1 * (600 + 400) + 1.25 * 200
    assert ledger.banked == -100 + 0.1 * 400
    assert ledger.budget(0.05) == 0.05 * ledger.spent + ledger.banked
    ledger.summarised()
    ledger.request(500, 100, read=0.1, write=1.25)
    assert ledger.banked == -100 + 0.1 * 400  # after a summary nothing more is counted as taken out


def test_a_restart_keeps_the_ledger_and_an_older_save_starts_from_the_history_written_once():
    engine, _ = run([6_000] * 12, 64_000)
    rows = [message_row(engine, i) for i in range(len(engine.history.messages))]
    again = ContextEngine(config=engine.config, store=engine.store)
    restore(again, rows, engine_state(engine))
    assert again.risk == engine.risk and again._appended_at_call == engine._appended_at_call
    old = {k: v for k, v in engine_state(engine).items() if k not in ("risk", "appended_at_call")}
    older = ContextEngine(config=engine.config, store=engine.store)
    restore(older, rows, old)
    assert older.risk == RiskLedger(engine.config.write_price * engine.history.total_tokens)
