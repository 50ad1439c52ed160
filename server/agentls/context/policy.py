"""Cache-aware batching: when to rewrite old blocks at all, decided by price.

Rewriting a block invalidates the prompt cache from that block on, so the
request stays an append-only extension of the previous one except at
deliberate moments. A batch gathers every eligible rewrite of every layer
(each block is rewritten at most once, so a rewritten prefix stays cached).

**The price of a batch** (:func:`rewrite_price`): the next request writes
again everything after the batch's first change, at the write price instead
of the read price (the model's: ``ContextConfig.write_price`` / ``read_price``,
1.25x and 0.1x of an uncached token by default): ``(write - read) * tail``. Under the real prompt cache
(prompt_cache.rewrite_cost) the tail starts earlier: at the newest cache
breakpoint of the previous request before the first change, since only a
prefix ending at a breakpoint can be read. When the cache is cold (first
call, after an idle gap, after a compaction) the price is 0.

**What waiting costs**: every request that still carries the blocks the
batch would free reads them again, ``0.1 * saves`` per request. How many
requests are left is unknown, so the rule is the deterministic ski-rental
one: keep paying that rent, and carry the batch out as soon as the rent
already paid since the last batch (``waste``) reaches its price. Read as an
estimate from the session itself: by then the blocks have been carried for
as many requests as the rewrite needs to pay back, and a session that has
run that long is expected to run as long again.

Bounds, stated with B the price and r the rent per request:

- *Never worse than twice hindsight* (for a fixed price): a session that ends
  before the rent reaches B never rewrites and pays that rent, exactly what
  the best choice in hindsight pays (not rewriting); a longer session pays
  the rent (< B) plus B, against at least B for hindsight (rewriting at
  once, or the longer rent): the classic factor 2.
- *Short sessions pay no more than sending everything* until their first
  batch, and a batch is only bought with rent already lost, so a session can
  only lose, against never rewriting, rent it had already wasted.
- *In a long session the rule is the best steady rhythm*: with candidates
  growing by ``a`` tokens per request and a tail of ``T`` tokens, batching
  every k requests costs ``(write - read) T / k + read a k / 2`` per request,
  lowest at ``read a k^2 / 2 = (write - read) T``, exactly when the accumulated
  rent equals the price.

**What the rewrite is expected to save** (:func:`expected_remaining`): the
rule above is a bound, not a forecast; a batch must also pay at the model's
prices over the requests the session is still expected to make:
``read * saves * remaining >= price``. The session's remaining length is
estimated from the session itself, with no other knowledge: a session that
has answered ``n`` requests is expected to make ``n`` more (the doubling
estimate: with no scale known in advance, having lasted ``n`` the session is
as likely to end before ``2n`` as after; before the first answered request,
one). Both conditions together: a session that fits the window and ends
before a batch would pay back never rewrites a block it has sent; it only
pays the rent (what sending everything would have paid).

Both are bets on the session's future; a third condition bounds the loss when it ends at once: the
engine (pipeline.py) holds a payback batch to the risk budget of risk.py, so that a session that fits the
window is never made more than ``ContextConfig.rewrite_risk`` dearer than sending everything, wherever it
ends.

A batch also folds the turns it would leave as husks (fold_turns.py): each fold is one more rewrite,
priced and timed with the rest.

Two overrides: under window pressure a batch that avoids a summary is
cheaper than the summary (which rewrites everything and adds a call), when it
makes room for ``pressure_min_requests`` requests at the session's mean growth
per request; one that makes less room only postpones the summary by a request
or two and pays a rewrite of the whole tail for nothing (issue 31: "clearing
that forces a later compaction anyway"), so the summary comes now. Nor may the batch cost more per
request than the summary it stands in for (:func:`cycle_cost`: a rewrite's price spread over the requests
until the history is back at the threshold, plus what each of them reads): a batch that frees little and
rewrites a long tail (a harness whose results are user text, which no layer clears) buys a few requests at
the price of a summary that would have bought many.
``batch_payoff`` scales the price (0: rewrite as soon as there is anything).

On a model whose thinking is bound to its prefix (``thinking_bound``) there
are no batches at all: a batch changes messages before carried thinking
blocks, which the API refuses (binding.py). The engine keeps that window
otherwise (pipeline.py: server-side editing, compaction, the last resort).

One rule above price: a result no request has carried yet (``unseen``: it
arrived after the last answered request) is no candidate of any layer. The
model sees every result at least once before a placeholder or a budget cut
may stand in for it; only the last resort (fit.py) may cut one to fit the
window, keeping its head and tail and naming the cut and its context:// ref.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain
from collections.abc import Callable, Collection, Iterable, Sequence

from .budget import plan_budget
from .clearing import plan_clear_inputs, plan_clear_results, plan_clear_text_results
from .config import ContextConfig
from .fold_turns import plan_turn_folds
from .history import History
from .microcompact import plan_microcompact
from .prompt_cache import rewrite_cost
from .prose import plan_clear_prose
from .rewrite import Rewrite
from .snip import plan_snip
from .superseded import plan_superseded

READ, WRITE = 0.10, 1.25  # the default prices of a cached / a written input token (ContextConfig)


def expected_remaining(calls: int) -> int:
    """Requests the session is expected to make after `calls` answered ones: as many again (at least one)."""
    return max(1, calls)


@dataclass
class Batch:
    reason: str  # "payback", "cold", "idle", "pressure", "emergency", "fit"; "" while deferred
    rewrites: list[Rewrite] = field(default_factory=list)
    price: float = 0.0  # what the next request pays extra because of it (token units)
    read_price: float = READ  # the model's price of a cached token (ContextConfig.read_price)

    @property
    def saves(self) -> int:
        return sum(r.saves for r in self.rewrites)

    @property
    def rent(self) -> float:
        """What every request that still carries these blocks pays for them."""
        return self.read_price * self.saves

    def expected_saving(self, calls: int) -> float:
        """The rent the rest of the session would no longer pay once the batch is carried out."""
        return self.rent * expected_remaining(calls)

    def pays(self, waste: float, calls: int, payoff: float = 1.0) -> bool:
        """Ski rental (the rent already paid reaches the price) and the expected saving beats the price."""
        price = payoff * self.price
        return waste >= price and self.expected_saving(calls) >= price


def rewrite_price(history: History, first_change: int, saves: int, *, cold: bool,
                  cached_ends: Sequence[int] = (), cache_model: str = "ideal",
                  read: float = READ, write: float = WRITE) -> float:
    """Extra cost of the next request when the history changes from message first_change on.

    cached_ends: the previous request's message breakpoints (where the real cache can be read up to);
    read / write: the model's prices of a cached and a written token.
    """
    if cold:
        return 0.0
    _, written = rewrite_cost(history.msg_tokens, first_change, cached_ends, cache_model)
    return (write - read) * max(0.0, written - saves)


def _gather(sources: Iterable[Rewrite], claimed: dict[tuple[str, str, int], Rewrite]) -> None:
    for rewrite in sources:
        claimed.setdefault(rewrite.key, rewrite)


def candidates(history: History, config: ContextConfig, estimate: int, *, idle: bool,
               unseen: Collection[str] = ()) -> list[Rewrite]:
    """Every rewrite the layers would make now (never of a result the model has not seen)."""
    window = config.effective_window
    utilization = estimate / window
    exempt = set(history.recent_results(config.snip_keep_recent)) | set(unseen)
    claimed: dict[tuple[str, str, int], Rewrite] = {}
    if idle or utilization >= config.snip_at:
        _gather(plan_snip(history, config, exempt), claimed)
    if idle:
        _gather(plan_microcompact(history, config, unseen), claimed)
    if utilization >= config.clear_at:
        keep = config.clear_keep_recent
        _gather(chain(plan_superseded(history, config),
                      plan_clear_results(history, config, keep, unseen=unseen,
                                         keep_named=config.clear_keep_named_turns),
                      plan_clear_text_results(history, config, keep, config.clear_keep_named_turns),
                      plan_clear_inputs(history, config, config.written_keep_recent),
                      plan_clear_prose(history, config, config.written_keep_recent)), claimed)
    after = (estimate - sum(r.saves for r in claimed.values())) / window
    taken = {key[0] for key in claimed if key[1] == "result"}
    _gather((r for r in plan_budget(history, config, after, exempt) if r.tool_use_id not in taken), claimed)
    # a rewrite into something no smaller (a short result and a longer placeholder) breaks the cache for nothing
    rewrites = [r for r in claimed.values() if r.saves > 0]
    if config.fold_settled:  # the turns these leave as husks leave whole (fold_turns.py)
        rewrites += plan_turn_folds(history, config, {r.key: r for r in rewrites}, unseen)
    return rewrites


def plan_batch(history: History, config: ContextConfig, estimate: int, *,
               cold: bool, idle: bool, waste: float = 0.0, cached_ends: Sequence[int] = (),
               unseen: Collection[str] = (), calls: int = 0, growth: float = 0.0,
               summary: Callable[[], tuple[float, float] | None] | None = None) -> Batch | None:
    """The batch to carry out now (reason set), a deferred one (reason ""), or None when nothing is eligible.

    calls: the requests answered so far this session (the estimate of what is left, expected_remaining);
    growth: the tokens the history grows by per request, on average this session (a pressure batch's room);
    summary: what a summary now would cost and leave (compaction_timing.summary_now), asked only under pressure."""
    rewrites = candidates(history, config, estimate, idle=idle, unseen=unseen)
    if not rewrites:
        return None
    batch = _priced(Batch("", rewrites, read_price=config.read_price), history, config, cached_ends, cold or idle)
    utilization = estimate / config.effective_window
    if idle:
        batch.reason = "idle"
    elif cold:
        batch.reason = "cold"
    elif batch.saves >= config.min_batch and batch.pays(waste, calls, config.batch_payoff):
        batch.reason = "payback"
    elif utilization >= config.compact_at:
        return pressure_batch(batch, history, config, estimate, growth=growth, summary=summary,
                              cached_ends=cached_ends, unseen=unseen)
    return batch


def pressure_batch(batch: Batch, history: History, config: ContextConfig, estimate: int, *, growth: float,
                   summary: Callable[[], tuple[float, float] | None] | None, cached_ends: Sequence[int] = (),
                   unseen: Collection[str] = ()) -> Batch:
    """Over the threshold: `batch` or a deeper one, whichever avoids the summary at the lower cost per request
    (reason "pressure"); `batch` deferred when neither does.

    The deeper one keeps only ``pressure_keep_recent`` newest results verbatim (and what the last replies named,
    within ``pressure_recent_fraction`` of the window) and the model's own writing of the newest turn. In a
    small window whose results are large (a harness that reads whole files) the usual batch frees room for a
    few requests and rewrites the same long tail each time: a batch every few requests, each priced like a
    summary. The deeper one rewrites a shorter tail and lasts longer, and it still keeps more than a summary
    would (prose, placeholders with their refs, the named results)."""
    offer = summary() if summary else None
    overhead = estimate - history.total_tokens
    options = [batch]
    if config.pressure_keep_recent is not None:
        deep_config = config.updated(clear_keep_recent=config.pressure_keep_recent, written_keep_recent=1,
                                     clear_recent_fraction=config.pressure_recent_fraction)
        rewrites = candidates(history, deep_config, estimate, idle=False, unseen=unseen)
        if {r.key for r in rewrites} != {r.key for r in batch.rewrites}:
            options.append(_priced(Batch("", rewrites, read_price=config.read_price), history, config, cached_ends))
    threshold = config.compact_at * config.effective_window
    relieving = [option for option in options
                 if relieves_pressure(option, config, estimate, growth, offer, overhead)]
    if not relieving:
        return batch
    best = min(relieving, key=lambda option: cycle_cost(option.price, estimate - option.saves, threshold,
                                                         max(1.0, growth), config.read_price))
    best.reason = "pressure"  # this batch alone avoids a summary: cheaper than one
    return best


def _priced(batch: Batch, history: History, config: ContextConfig, cached_ends: Sequence[int],
            cold: bool = False) -> Batch:
    """`batch` with its price: what the next request pays extra for writing again from its first change."""
    first = min(r.position(history) for r in batch.rewrites)
    batch.price = rewrite_price(history, first, batch.saves, cold=cold, cached_ends=cached_ends,
                                cache_model=config.cache_model, read=config.read_price, write=config.write_price)
    return batch


def relieves_pressure(batch: Batch, config: ContextConfig, estimate: int, growth: float,
                      summary: tuple[float, float] | None, overhead: int = 0) -> bool:
    """Whether `batch`, over the compaction threshold, beats the summary it stands in for (module docstring):
    it makes room for ``pressure_min_requests`` requests and costs no more per request than the summary
    (its price over the requests it makes room for, plus what each of them reads). summary: (price, message
    tokens carried after it) of a summary now, None when none could be had; overhead: the request's tokens
    outside the messages."""
    threshold = config.compact_at * config.effective_window
    growth = max(1.0, growth)
    carried = estimate - batch.saves
    if threshold - carried < config.pressure_min_requests * growth:
        return False
    if summary is None:
        return True
    price, kept = summary
    return cycle_cost(batch.price, carried, threshold, growth, config.read_price) <= cycle_cost(
        price, overhead + kept, threshold, growth, config.read_price)


def cycle_cost(price: float, carried: float, threshold: float, growth: float, read: float) -> float:
    """Per request, from a rewrite that leaves `carried` tokens until the history grows to `threshold`: the
    rewrite's price spread over those requests, and what each reads on average."""
    room = max(0.0, threshold - carried)
    requests = max(1.0, room / growth)
    return price / requests + read * (carried + room / 2)


def plan_emergency(history: History, config: ContextConfig, unseen: Collection[str] = ()) -> Batch:
    """Everything clearable except the newest message's results and what the model has not seen:
    no summary could be had."""
    newest = len(history.open_results_of_last())
    rewrites = list(chain(plan_clear_results(history, config, newest, unseen=unseen),
                          plan_clear_text_results(history, config, 1),
                          plan_clear_inputs(history, config, 0), plan_clear_prose(history, config, 0)))
    limit_budget = plan_budget(history, config, 1.0, exempt=set(unseen))
    taken = {r.tool_use_id for r in rewrites if r.key[1] == "result"}
    rewrites += [r for r in limit_budget if r.tool_use_id not in taken]
    return Batch("emergency", rewrites, read_price=config.read_price)
