"""Several policies at several windows on the same traces, one table.

What ``agentls replay --compare`` prints: per window, the total of every
policy (cost as a ratio of the seed's, recall, requests over the window,
compactions), then the traces where the default policy costs the most
relative to the seed, and any trace where it costs more than another policy.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from ..context.structure import request_problems
from .replay import TraceResult, load_trace, replay_trace, total_of

WINDOWS = (32_000, 64_000, 200_000)
POLICIES = ("seed", "default", "anthropic")
SHOWN_WORST = 5
Job = TypeVar("Job")
Done = TypeVar("Done")


@dataclass
class Comparison:
    window: int
    results: dict[str, list[TraceResult]]  # policy -> per trace, in path order

    def total(self, policy: str) -> TraceResult:
        return total_of(self.results[policy])


def _replay_one(job: tuple[str, str, int, str]) -> TraceResult:
    path, policy, window, cache = job
    trace_id, messages = load_trace(path)
    return replay_trace(trace_id, messages, policy, window, check=request_problems, cache=cache)


def run_jobs(replay: Callable[[Job], Done], work: list[Job], jobs: int) -> list[Done]:
    """`replay` of every job, in order; in `jobs` processes when more than one."""
    if jobs <= 1:
        return [replay(job) for job in work]
    with ProcessPoolExecutor(jobs) as pool:
        return list(pool.map(replay, work, chunksize=4))


def compare(paths: list[str], windows: tuple[int, ...] = WINDOWS, policies: tuple[str, ...] = POLICIES,
            jobs: int = 1, cache: str = "anthropic") -> list[Comparison]:
    """Every policy at every window, all billed by the same cache model."""
    work = [(p, policy, w, cache) for w in windows for policy in policies for p in paths]
    found = dict(zip(work, run_jobs(_replay_one, work, jobs)))
    return [Comparison(w, {policy: [found[(p, policy, w, cache)] for p in paths] for policy in policies})
            for w in windows]


def _ratio(a: float, b: float) -> float:
    return a / b if b else 1.0


def format_comparison(comparisons: list[Comparison], base: str = "seed", ours: str = "default") -> str:
    rows: list[str] = []
    for comp in comparisons:
        baseline = comp.total(base)
        rows.append(f"window {comp.window:,}")
        rows.append(f"  {'policy':10} {'cost':>12} {'/ ' + base:>8} {'recall':>6} {'over':>4} {'invalid':>7} "
                    f"{'cmp':>4} {'peak':>8}")
        for policy in comp.results:
            t = comp.total(policy)
            rows.append(f"  {policy:10} {t.cost:>12,.0f} {_ratio(t.cost, baseline.cost):>7.3f}x {t.recall:>6.3f} "
                        f"{t.over_window:>4} {t.invalid_requests:>7} {t.compactions:>4} {t.peak_tokens:>8,}")
        mine = comp.results[ours]
        ratios = sorted(((_ratio(r.cost, b.cost), r.trace) for r, b in zip(mine, comp.results[base])), reverse=True)
        rows.append(f"  worst {ours} / {base}: " + ", ".join(f"{t} {x:.4f}" for x, t in ratios[:SHOWN_WORST]))
        for other in comp.results:
            if other == ours:
                continue
            above = [(r.trace, _ratio(r.cost, o.cost)) for r, o in zip(mine, comp.results[other]) if r.cost > o.cost]
            if above:
                rows.append(f"  {ours} costs more than {other} on {len(above)}: "
                            + ", ".join(f"{t} {x:.3f}" for t, x in sorted(above, key=lambda a: -a[1])))
    return "\n".join(rows)


def comparison_json(comparisons: list[Comparison]) -> list[dict[str, Any]]:
    return [{"window": c.window,
             "totals": {p: c.total(p).as_dict() for p in c.results},
             "traces": {p: [r.as_dict() for r in rs] for p, rs in c.results.items()}}
            for c in comparisons]
