"""Several policies at several windows on the same traces, one table.

What ``agentls replay --compare`` prints: per window, the total of every
policy (cost as a ratio of the seed's, reference recall and the priced
re-reads of the missing references, requests over the window, compactions),
then the traces where the default policy costs the most against the cheapest
baseline of that trace, worst first, against each of the four baselines:
doing nothing (only where it fits the window), the seed, append-only with one
summary at the threshold, and Anthropic's server-side clearing with its defaults.
Beside the totals, the lower bound of lower_bound.py (what no policy keeping
every later-referenced result can beat) and the default's ratio to it; then
the bound issue 31 names (every later reference kept from its arrival on, and
the task), with the ratio of the totals and of the prompts alone (the replies'
output left out of both: the issue's figures were without it).
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..context.structure import request_problems
from .lower_bound import LowerBound, Rates, lower_bound
from .replay import TraceResult, replay_trace, total_of
from .trace_file import load_trace

WINDOWS = (32_000, 64_000, 200_000)
POLICIES = ("none", "seed", "append-only", "anthropic", "default")  # the baselines, then ours
SHOWN_WORST = 5
Job = TypeVar("Job")
Done = TypeVar("Done")


@dataclass
class Comparison:
    window: int
    results: dict[str, list[TraceResult]]  # policy -> per trace, in path order
    bounds: list[float] = field(default_factory=list)  # lower_bound.py's bound per trace, in path order
    kept_bounds: list[LowerBound] = field(default_factory=list)  # the same with kept=True (issue 31's)

    @property
    def bound(self) -> float:
        return sum(self.bounds)

    @property
    def kept_bound(self) -> float:
        return sum(b.total for b in self.kept_bounds)

    @property
    def kept_bound_prompts(self) -> float:
        """The kept bound without the replies' output."""
        return sum(b.total - b.output for b in self.kept_bounds)

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
    traces = [load_trace(p)[1] for p in paths]
    return [Comparison(w, {policy: [found[(p, policy, w, cache)] for p in paths] for policy in policies},
                       [lower_bound(messages, w, Rates.replay_units()).total for messages in traces],
                       [lower_bound(messages, w, Rates.replay_units(), kept=True) for messages in traces])
            for w in windows]


def _ratio(a: float, b: float) -> float:
    return a / b if b else 1.0


Option = tuple[str, float, float]  # (policy, cost, reference recall) of one trace


def cheapest_peer(options: list[Option], recall: float) -> tuple[str, float] | None:
    """(policy, cost) of the cheapest option whose reference recall is at least `recall`: a policy that is
    cheaper only because it keeps less is not the one to beat. None when every option keeps less."""
    peers = [(cost, policy) for policy, cost, kept in options if kept >= recall - 1e-9]
    if not peers:
        return None
    cost, policy = min(peers)
    return policy, cost


def cheapest_baseline(comp: Comparison, index: int, ours: str = "default") -> tuple[str, float] | None:
    """The cheapest baseline of trace `index` that is a real choice there ("none" only where it fits) and
    keeps at least our reference recall."""
    options = [(policy, results[index].cost, results[index].recall) for policy, results in comp.results.items()
               if policy != ours and (policy != "none" or results[index].over_window == 0)]
    return cheapest_peer(options, comp.results[ours][index].recall)


def worst_first(comp: Comparison, ours: str = "default") -> list[tuple[float, int]]:
    """(ours / the cheapest baseline of equal or better recall, trace index), the worst trace first; a trace
    where every baseline keeps less than ours counts 0."""
    mine = comp.results[ours]
    ranked = []
    for i, r in enumerate(mine):
        peer = cheapest_baseline(comp, i, ours)
        ranked.append((_ratio(r.cost, peer[1]) if peer else 0.0, i))
    return sorted(ranked, reverse=True)


def _against(mine: TraceResult, other: TraceResult, policy: str) -> str:
    return "-" if policy == "none" and other.over_window else f"{_ratio(mine.cost, other.cost):.3f}"


def format_comparison(comparisons: list[Comparison], base: str = "seed", ours: str = "default") -> str:
    """Totals per policy (cost against `base`, reference recall, the priced re-reads of what is missing),
    then the worst traces first: ours against each baseline ("none" only where it fits the window)."""
    rows: list[str] = []
    for comp in comparisons:
        baseline = comp.total(base)
        rows.append(f"window {comp.window:,}")
        rows.append(f"  {'policy':11} {'cost':>12} {'/ ' + base:>8} {'recall':>6} {'re-read':>10} {'+re-read':>12} "
                    f"{'over':>4} {'invalid':>7} {'cmp':>4} {'peak':>8}")
        for policy in comp.results:
            t = comp.total(policy)
            rows.append(f"  {policy:11} {t.cost:>12,.0f} {_ratio(t.cost, baseline.cost):>7.3f}x {t.recall:>6.3f} "
                        f"{t.reread_cost:>10,.0f} {t.cost + t.reread_cost:>12,.0f} "
                        f"{t.over_window:>4} {t.invalid_requests:>7} {t.compactions:>4} {t.peak_tokens:>8,}")
        if comp.bounds and ours in comp.results:
            rows.append(f"  {'bound':11} {comp.bound:>12,.0f} {_ratio(comp.bound, baseline.cost):>7.3f}x "
                        f"(lower bound, every later reference kept): {ours} / bound "
                        f"{_ratio(comp.total(ours).cost, comp.bound):.3f}x")
        if comp.kept_bounds and ours in comp.results:
            cost = comp.total(ours).cost
            prompts = cost - (comp.kept_bound - comp.kept_bound_prompts)  # the replies' output out (a summary's stays)
            rows.append(f"  {'bound-kept':11} {comp.kept_bound:>12,.0f} "
                        f"{_ratio(comp.kept_bound, baseline.cost):>7.3f}x (issue 31's: each later reference kept "
                        f"from its arrival on, and the task): {ours} / it {_ratio(cost, comp.kept_bound):.3f}x; "
                        f"without the replies {prompts:,.0f} / {comp.kept_bound_prompts:,.0f} = "
                        f"{_ratio(prompts, comp.kept_bound_prompts):.3f}x")
        mine = comp.results[ours]
        others = [p for p in comp.results if p != ours]
        rows.append(f"  worst first, {ours} / the cheapest baseline of equal or better reference recall, "
                    f"then / each ('-': over the window) with its recall:")
        for ratio, i in worst_first(comp, ours)[:SHOWN_WORST]:
            each = " ".join(f"{p} {_against(mine[i], comp.results[p][i], p)} ({comp.results[p][i].recall:.2f})"
                            for p in others)
            peer = cheapest_baseline(comp, i, ours)
            rows.append(f"    {mine[i].trace[:44]:44} {ratio:.3f}x {peer[0] if peer else '(best recall)':13} "
                        f"recall {mine[i].recall:.3f} | {each}")
        if base in comp.results:
            ratios = sorted(((_ratio(r.cost, b.cost), r.trace) for r, b in zip(mine, comp.results[base])),
                            reverse=True)
            rows.append(f"  worst {ours} / {base}: " + ", ".join(f"{t} {x:.4f}" for x, t in ratios[:SHOWN_WORST]))
        for other in others:
            above = [(r.trace, _ratio(r.cost, o.cost)) for r, o in zip(mine, comp.results[other])
                     if r.cost > o.cost and (other != "none" or o.over_window == 0)]
            if above:
                rows.append(f"  {ours} costs more than {other} on {len(above)}: "
                            + ", ".join(f"{t} {x:.3f}" for t, x in sorted(above, key=lambda a: -a[1])[:8]))
    return "\n".join(rows)


def comparison_json(comparisons: list[Comparison]) -> list[dict[str, Any]]:
    return [{"window": c.window, "lower_bound": c.bound, "lower_bound_kept": c.kept_bound,
             "lower_bound_kept_prompts": c.kept_bound_prompts,
             "totals": {p: c.total(p).as_dict() for p in c.results},
             "traces": {p: [r.as_dict() for r in rs] for p, rs in c.results.items()}}
            for c in comparisons]
