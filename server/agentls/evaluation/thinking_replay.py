"""``agentls replay --model ID``: the policies of baselines.py on the same traces, thinking on every reply.

Each trace is replayed once per policy and window, as replay.py replays it (the same cache model, clock,
system prompt, stand-in summaries and recall), with three differences: every recorded reply opens with a
thinking block signed against the request this policy sent for it (thinking_ledger.py); every request a
policy sends, summary calls included, is checked against those signatures, and the thinking blocks that
fail are counted ("invalidated": the API would refuse the request, or drop them and every later block);
each request is priced in USD at the model's list prices (model_prices.py). Each reply (its thinking
included) is billed as output at the model's output price; a summary call adds its 2,000 output tokens.
Beside the totals: lower_bound.py's bound at the model's prices (the replies and their thinking billed as
here), and agentls's ratio to it; then the same with kept=True (issue 31's bound), with the ratio also
without the replies.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, fields
from typing import Any

from ..context.blocks import Message
from ..context.prompt_cache import CacheUsage
from ..context.tokens import CHARS_PER_TOKEN
from ..model.binding import thinking_binds
from .baselines import BASE, POLICIES, HeldBaseline, agentls_config, baseline
from .hindsight import HINDSIGHT, HindsightBaseline
from .lower_bound import LowerBound, Rates, lower_bound
from .model_prices import ModelPrices
from .reference_recall import ReferenceTracker
from .replay import (SUMMARY_OUTPUT_TOKENS, SYSTEM_TOKENS, Pricer, TraceResult, finished, is_call, reply_tokens,
                     total_of)
from .trace_file import load_trace
from .replay_compare import WINDOWS, cheapest_peer, run_jobs
from .thinking_ledger import THINKING_CHARS, ThinkingLedger, thinking_text

@dataclass
class ThinkingResult(TraceResult):
    policy: str = ""
    usd: float = 0.0
    invalidated_thinking: int = 0  # distinct thinking blocks some request carried after their prefix changed
    failing_requests: int = 0  # requests carrying at least one of them
    thinking_stripped: int = 0  # blocks the policy stripped because its rewrite had invalidated them


Runs = dict[int, dict[str, list[ThinkingResult]]]  # window -> policy -> the result of every trace
Bounds = dict[int, float]  # window -> lower_bound.py's bound, summed over the traces (USD)
KeptBounds = dict[int, tuple[float, float]]  # window -> (issue 31's bound, the replies' output in it), USD
Oracles = dict[int, "ThinkingResult"]  # window -> hindsight.py's oracle, totalled over the traces


@dataclass(frozen=True)
class Settings:
    model: str
    server_editing: bool = True
    server_compaction: bool = True
    thinking_chars: int = THINKING_CHARS


def replay_with_thinking(trace_id: str, messages: list[Message], policy: str, window: int,
                         settings: Settings) -> ThinkingResult:
    prices = ModelPrices.of(settings.model)
    result = ThinkingResult(trace_id, policy=policy)
    pricer = Pricer(trace_id, result, None, minimum_tokens=prices.minimum_tokens)
    ledger = ThinkingLedger()
    config = agentls_config(settings.model, prices, settings.server_editing, settings.server_compaction)
    run = HindsightBaseline(messages, window, Rates.of_model(prices), SYSTEM_TOKENS, settings.thinking_chars) \
        if policy == HINDSIGHT else baseline(policy, window, config, ledger)
    references = ReferenceTracker()
    request: list[Message] | None = None
    for index, message in enumerate(messages):
        if message["role"] == "assistant" and request is not None:
            message = ledger.sign(request, message, thinking_text(trace_id, index, settings.thinking_chars))
            output = reply_tokens(message)
            result.output_tokens += output
            result.usd += prices.usd(CacheUsage(), output)
        run.append(message)
        references.observe(message)
        if not is_call(messages, index):
            continue
        now = index * 10.0  # replay.py's clock: 10 s per recorded message
        started = time.perf_counter()
        turn = run.prepare(now)
        elapsed = (time.perf_counter() - started) * 1000
        result.pipeline_ms_total += elapsed
        result.pipeline_ms_max = max(result.pipeline_ms_max, elapsed)
        summary_frontier, frontier, previous_frontier = turn.frontiers
        for sent, priced in turn.summaries:
            ledger.count(sent)
            pricer.price(priced, compacted=False, summary=True, frontier=summary_frontier, now=now)
            result.usd += prices.usd(pricer.last_usage, SUMMARY_OUTPUT_TOKENS)
            result.compactions += 1
        ledger.count(turn.sent)
        tokens = pricer.price(turn.priced, compacted=bool(turn.summaries), frontier=frontier, now=now,
                              previous_frontier=previous_frontier)
        result.usd += prices.usd(pricer.last_usage)
        result.over_window += tokens > window
        result.add_references(references.score(turn.priced, messages[index + 1]))
        run.after_call(tokens, now, pricer.last_ttl, reply_tokens(messages[index + 1]))
        request = turn.sent
    result.invalidated_thinking = len(ledger.invalidated)
    result.failing_requests = ledger.failing_requests
    result.thinking_stripped = run.stripped if isinstance(run, HeldBaseline) else 0
    finished(result)
    return result


def thinking_total(results: list[ThinkingResult], policy: str) -> ThinkingResult:
    base = total_of(list(results))
    total = ThinkingResult(**{f.name: getattr(base, f.name) for f in fields(TraceResult)}, policy=policy)
    for name in ("usd", "invalidated_thinking", "failing_requests", "thinking_stripped"):
        setattr(total, name, sum(getattr(r, name) for r in results))
    return total


def _replay_one(job: tuple[str, str, int, Settings]) -> ThinkingResult:
    path, policy, window, settings = job
    trace_id, messages = load_trace(path)
    return replay_with_thinking(trace_id, messages, policy, window, settings)


def compare_with_thinking(paths: list[str], settings: Settings, windows: tuple[int, ...] = WINDOWS,
                          policies: tuple[str, ...] = POLICIES, jobs: int = 1) -> Runs:
    """Per window, per policy, the result of every trace (in path order)."""
    work = [(p, policy, w, settings) for w in windows for policy in policies for p in paths]
    found = {job[:3]: result for job, result in zip(work, run_jobs(_replay_one, work, jobs))}
    return {w: {policy: [found[(p, policy, w)] for p in paths] for policy in policies} for w in windows}


def bound_with_thinking(trace_id: str, messages: list[Message], window: int, settings: Settings,
                        kept: bool = False) -> LowerBound:
    """lower_bound.py's bound in USD at the model's prices, each reply billed with its thinking as above."""
    thinking = {i + 1: len(thinking_text(trace_id, i + 1, settings.thinking_chars)) / CHARS_PER_TOKEN
                for i in range(len(messages)) if is_call(messages, i)}
    output = sum(reply_tokens(messages[i + 1]) + thinking[i + 1] for i in range(len(messages)) if is_call(messages, i))
    return lower_bound(messages, window, Rates.of_model(ModelPrices.of(settings.model)),
                       output_tokens=output, kept=kept, thinking=thinking)


def bounds_with_thinking(paths: list[str], settings: Settings, windows: tuple[int, ...] = WINDOWS) -> Bounds:
    traces = [load_trace(p) for p in paths]
    return {w: sum(bound_with_thinking(trace_id, messages, w, settings).total for trace_id, messages in traces)
            for w in windows}


def kept_bounds_with_thinking(paths: list[str], settings: Settings,
                              windows: tuple[int, ...] = WINDOWS) -> KeptBounds:
    """Per window (issue 31's bound, kept=True: its total, the replies' output in it), summed over the traces."""
    traces = [load_trace(p) for p in paths]
    found = {w: [bound_with_thinking(t, m, w, settings, kept=True) for t, m in traces] for w in windows}
    return {w: (sum(b.total for b in bs), sum(b.output for b in bs)) for w, bs in found.items()}


def oracles_with_thinking(paths: list[str], settings: Settings, windows: tuple[int, ...] = WINDOWS,
                          jobs: int = 1) -> Oracles:
    """hindsight.py's oracle, totalled per window; none where the model binds thinking (its rewrites would
    invalidate the thinking after them: it is the bound the issue names for a model that does not)."""
    if thinking_binds(settings.model, True):
        return {}
    runs = compare_with_thinking(paths, settings, windows, (HINDSIGHT,), jobs)
    return {w: thinking_total(by_policy[HINDSIGHT], HINDSIGHT) for w, by_policy in runs.items()}


def _ratio(a: float, b: float | None) -> str:
    return f"{a / b:.3f}x" if b else "-"


def format_thinking(runs: Runs, settings: Settings, bounds: Bounds | None = None, ours: str = "agentls",
                    oracles: Oracles | None = None, kept_bounds: KeptBounds | None = None) -> str:
    prices = ModelPrices.of(settings.model)
    rows = [f"model={settings.model} reads {prices.read_multiplier:.3g}x writes {prices.write_multiplier:.3g}x "
            f"input (${prices.price.input}/MTok) thinking {settings.thinking_chars} chars/reply "
            f"server editing={settings.server_editing} compaction={settings.server_compaction}"]
    for window, by_policy in runs.items():
        totals = {policy: thinking_total(results, policy) for policy, results in by_policy.items()}
        base = totals[BASE].usd if BASE in totals else None
        rows.append(f"window {window:,}: {len(next(iter(by_policy.values())))} traces")
        rows.append(f"  {'policy':14} {'USD':>10} {'/ ' + BASE:>14} {'recall':>6} {'re-read':>8} {'invalidated':>11} "
                    f"{'failing req':>11} {'stripped':>8} {'requests':>8} {'cmp':>4} {'over':>4}")
        for policy, t in totals.items():
            rows.append(f"  {policy:14} {t.usd:>10.2f} {_ratio(t.usd, base):>14} {t.recall:>6.3f} "
                        f"{reread_usd(t, prices):>8.2f} {t.invalidated_thinking:>11} {t.failing_requests:>11} "
                        f"{t.thinking_stripped:>8} {t.requests:>8} {t.compactions:>4} {t.over_window:>4}")
        if bounds and window in bounds:
            mine = f": {ours} / bound {_ratio(totals[ours].usd, bounds[window])}" if ours in totals else ""
            rows.append(f"  {'bound':14} {bounds[window]:>10.2f} {_ratio(bounds[window], base):>14} "
                        f"(lower bound, every later reference kept){mine}")
        if kept_bounds and window in kept_bounds:
            kept, replies = kept_bounds[window]
            mine = (f": {ours} / it {_ratio(totals[ours].usd, kept)}; without the replies "
                    f"{_ratio(totals[ours].usd - replies, kept - replies)}") if ours in totals else ""
            rows.append(f"  {'bound-kept':14} {kept:>10.2f} {_ratio(kept, base):>14} "
                        f"(issue 31's: each later reference kept from its arrival on, and the task){mine}")
        if oracles and window in oracles:
            o = oracles[window]
            mine = f": {ours} / oracle {_ratio(totals[ours].usd, o.usd)} at recall {totals[ours].recall:.3f}" \
                if ours in totals else ""
            rows.append(f"  {'hindsight':14} {o.usd:>10.2f} {_ratio(o.usd, base):>14} {o.recall:>6.3f} "
                        f"(oracle: every later reference kept, rewrites timed with hindsight){mine}")
        rows.extend(_worst_first(by_policy, thinking_binds(settings.model, True)))
    return "\n".join(rows)


def reread_usd(result: TraceResult, prices: ModelPrices) -> float:
    """Re-reading every missing reference: new input written to the cache at the model's write price."""
    return result.reread_tokens * prices.price.cache_write / 1_000_000


def worst_first(by_policy: dict[str, list[ThinkingResult]], ours: str = "agentls",
                bound: bool = True) -> list[tuple[float, int, str]]:
    """(ours / the cheapest baseline the API would accept of equal or better reference recall, trace index,
    that baseline), the worst first; traces where every such baseline keeps less: none. `bound`: the model
    binds thinking to its prefix, so a baseline with a failing request is refused (elsewhere the API only
    ignores the thinking of earlier turns)."""
    ranked = []
    for i, mine in enumerate(by_policy.get(ours, [])):
        theirs = [(p, rs[i]) for p, rs in by_policy.items() if p != ours]
        options = [(p, r.usd, r.recall) for p, r in theirs if not (bound and r.failing_requests)]
        peer = cheapest_peer(options, mine.recall)
        if peer is not None:
            ranked.append((mine.usd / peer[1] if peer[1] else 1.0, i, peer[0]))
    return sorted(ranked, reverse=True)


def _worst_first(by_policy: dict[str, list[ThinkingResult]], bound: bool, ours: str = "agentls",
                 shown: int = 5) -> list[str]:
    if ours not in by_policy:
        return []
    valid = "binding-valid baseline" if bound else "baseline"
    rows = [f"  worst first, {ours} / the cheapest {valid} of equal or better reference recall:"]
    for ratio, i, policy in worst_first(by_policy, ours, bound)[:shown]:
        mine = by_policy[ours][i]
        peer = by_policy[policy][i]
        rows.append(f"    {mine.trace[:44]:44} {ratio:.3f}x {policy:14} recall {mine.recall:.3f} "
                    f"(theirs {peer.recall:.3f})")
    return rows


def thinking_json(runs: Runs, settings: Settings, bounds: Bounds | None = None,
                  oracles: Oracles | None = None, kept_bounds: KeptBounds | None = None) -> dict[str, Any]:
    prices = ModelPrices.of(settings.model)
    return {"model": settings.model, "read_multiplier": prices.read_multiplier,
            "write_multiplier": prices.write_multiplier, "thinking_chars": settings.thinking_chars,
            "server_editing": settings.server_editing, "server_compaction": settings.server_compaction,
            "base": BASE,
            "windows": [{"window": w, "lower_bound": (bounds or {}).get(w),
                         "lower_bound_kept": kb[0] if (kb := (kept_bounds or {}).get(w)) else None,
                         "hindsight": oracle.as_dict() if (oracle := (oracles or {}).get(w)) else None,
                         "totals": {p: thinking_total(rs, p).as_dict() for p, rs in by_policy.items()},
                         "traces": {p: [r.as_dict() for r in rs] for p, rs in by_policy.items()}}
                        for w, by_policy in runs.items()]}
