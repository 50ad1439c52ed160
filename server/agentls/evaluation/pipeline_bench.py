"""Steady-state pipeline time per call on synthetic histories of growing size.

Thresholds are set so every layer is armed (snip, clear, budget, inputs)
while the window is large enough that L3 never fires: what is measured is
the per-call cost of deciding, which must not grow with the history.
"""

from __future__ import annotations

import statistics
import time

from ..context.config import ContextConfig
from ..context.pipeline import ContextEngine, Prepared
from ..context.tokens import Usage

SIZES = (250, 1_000, 4_000)
MEASURED_CALLS = 200


def armed_config() -> ContextConfig:
    return ContextConfig(window=4_000_000, clear_at=0.0, snip_at=0.0, budget_soft_at=0.0,
                         budget_hard_at=0.0, compact_at=0.99, min_batch_tokens=3_000)


def _call(engine: ContextEngine, n: int) -> None:
    """One model turn of a synthetic session: a tool call and its result."""
    kind = n % 5
    if kind == 0:
        use = {"name": "read_file", "input": {"path": f"src/module_{n % 40}.py"}}
        result = f"{n}: line of source code\n" * 300
    elif kind == 1:
        use = {"name": "run_shell", "input": {"command": f"pytest tests/test_{n % 7}.py"}}
        result = f"test output {n}\n" * (2_000 if n % 50 == 1 else 60)
    elif kind == 2:
        use = {"name": "write_file", "input": {"path": f"out/{n}.txt", "content": "x" * 1_500}}
        result = "wrote 1500 chars"
    elif kind == 3:
        use = {"name": "grep_search", "input": {"pattern": f"def f{n % 9}"}}
        result = f"src/a.py:{n}: def f\n" * 40
    else:
        use = {"name": "list_files", "input": {"path": "."}}
        result = "a.py\nb.py\n" * 50
    tool_use_id = f"toolu_{n:06d}"
    engine.append({"role": "assistant", "content": [
        {"type": "text", "text": f"Step {n}."},
        {"type": "tool_use", "id": tool_use_id, **use},
    ]})
    engine.append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": tool_use_id, "content": result},
    ]})


def grown_engine(results: int) -> ContextEngine:
    """An engine after `results` steady-state model turns (each prepared and answered)."""
    engine = ContextEngine(config=armed_config())
    engine.append({"role": "user", "content": [{"type": "text", "text": "Start."}]})
    for n in range(results):
        steady_call(engine, n)
    return engine


def steady_call(engine: ContextEngine, n: int, timings: list[float] | None = None) -> Prepared:
    """Model turn `n` (at second n + 1): its tool call and result, the request prepared (timed into
    `timings`, in ms) and answered."""
    _call(engine, n)
    clock = float(n + 1)
    started = time.perf_counter()
    prepared = engine.prepare(clock)
    if timings is not None:
        timings.append((time.perf_counter() - started) * 1000)
    engine.record_usage(Usage(cache_read_input_tokens=engine.raw_estimate), clock)
    return prepared


def _measure(size: int) -> dict[str, float]:
    engine = grown_engine(size - MEASURED_CALLS)
    timings: list[float] = []
    for n in range(size - MEASURED_CALLS, size):
        prepared = steady_call(engine, n, timings)
    assert not prepared.compaction_due
    rewritten = sum(stat.count for stat in engine.stats.values())
    return {
        "results": size,
        "messages": len(engine.history.messages),
        "mean_ms": statistics.fmean(timings),
        "median_ms": statistics.median(timings),
        "p95_ms": sorted(timings)[int(len(timings) * 0.95)],
        "rewrites": rewritten,
    }


def run_pipeline_bench() -> dict:
    rows = [_measure(size) for size in SIZES]
    return {"sizes": rows, "ratio_largest_to_smallest": rows[-1]["mean_ms"] / rows[0]["mean_ms"]}


def format_bench(figures: dict) -> str:
    lines = [f"{'results':>8} {'messages':>9} {'mean ms':>8} {'median':>8} {'p95 ms':>8} {'rewrites':>9}"]
    for row in figures["sizes"]:
        lines.append(f"{row['results']:>8} {row['messages']:>9} {row['mean_ms']:>8.3f} {row['median_ms']:>8.3f} "
                     f"{row['p95_ms']:>8.3f} {row['rewrites']:>9}")
    lines.append(f"mean per call at {figures['sizes'][-1]['results']} / at {figures['sizes'][0]['results']}: "
                 f"{figures['ratio_largest_to_smallest']:.2f}x")
    return "\n".join(lines)
