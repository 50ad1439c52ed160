"""Over the window, a deeper batch is weighed beside the usual one (policy.pressure_batch): in a small window
whose results are whole files, the usual batch bought a few requests at the price of rewriting the whole tail,
again and again (a Roo-style session at 32K cost up to 1.12x the seed)."""

import pytest

from agentls.context import ContextConfig, ContextEngine, MemoryStore
from agentls.context.policy import cycle_cost, plan_batch
from agentls.evaluation import replay
from agentls.evaluation.shaped_traces import text_protocol_whole_files
from synth import assistant_text, read_turn, user


def over_the_window(config: ContextConfig, results: int = 24, size: int = 3_600) -> ContextEngine:
    engine = ContextEngine(config=config, store=MemoryStore())
    engine.append(user("start"))
    for n in range(results):
        read_turn(engine, f"src/f{n}.py", f"{n} " * (size // 2))
        engine.append(assistant_text(f"step {n}"))
        engine.append(user("go on"))
    read_turn(engine, "src/last.py", "last " * 200)
    return engine


def test_over_the_window_the_deeper_batch_goes_when_it_costs_less_per_request():
    config = ContextConfig(window=20_000, output_reserve=0, system_tokens=0)
    engine = over_the_window(config)
    estimate, threshold = engine.estimate(), config.compact_at * config.effective_window
    assert estimate >= threshold

    def plan(cfg: ContextConfig):
        return plan_batch(engine.history, cfg, estimate, cold=False, idle=False, calls=engine.calls, growth=900.0,
                          cached_ends=[len(engine.history.messages) - 3])

    usual, chosen = plan(config.updated(pressure_keep_recent=None)), plan(config)
    assert usual is not None and chosen is not None
    assert usual.reason == chosen.reason == "pressure"

    def per_request(batch):
        return cycle_cost(batch.price, estimate - batch.saves, threshold, 900.0, config.read_price)

    assert chosen.saves > usual.saves  # it frees more...
    assert per_request(chosen) < per_request(usual)  # ...for less per request until the threshold is back
    # what stays verbatim: the newest results, those the model has not seen yet among them
    cleared = {r.tool_use_id for r in chosen.rewrites if r.key[1] == "result"}
    newest = engine.history.results[-config.pressure_keep_recent:]
    assert cleared and not cleared & set(newest)


def test_a_usual_batch_as_deep_as_the_deeper_one_is_the_only_option():
    # settings that keep as little as the deeper batch would: the same batch, no second pricing
    config = ContextConfig(window=20_000, output_reserve=0, system_tokens=0, clear_keep_recent=1,
                           clear_recent_fraction=0.20)
    engine = over_the_window(config)
    estimate = engine.estimate()
    same = plan_batch(engine.history, config, estimate, cold=False, idle=False, calls=engine.calls, growth=900.0)
    off = plan_batch(engine.history, config.updated(pressure_keep_recent=None), estimate, cold=False,
                     idle=False, calls=engine.calls, growth=900.0)
    assert same is not None and off is not None
    assert {r.key for r in same.rewrites} == {r.key for r in off.rewrites} and same.reason == off.reason


@pytest.mark.parametrize("seed", [13, 3, 1])
def test_a_roo_style_session_at_32k_costs_less_than_the_seed_at_the_same_recall(seed):
    trace = text_protocol_whole_files(seed)

    def run(policy: str, config: ContextConfig | None = None) -> replay.TraceResult:
        return replay.replay_trace(trace["id"], trace["messages"], policy, 32_000, config=config)

    ours, seed_policy = run("default"), run("seed")
    usual_only = run("default", ContextConfig(pressure_keep_recent=None))
    assert ours.over_window == 0 and ours.invalid_requests == 0
    assert ours.recall >= seed_policy.recall
    assert ours.cost < seed_policy.cost
    assert usual_only.cost > 1.05 * seed_policy.cost  # what it cost before: the deeper batch is what holds
