"""When a summary pays before the window forces one: compaction timed by its price (pure, no I/O).

A compaction replaces the turns before its cut (compact.py's ``choose_cut``: a verbatim tail is kept) by a
summary. What it costs and saves, in uncached-input-token units at the model's prices (``ContextConfig``:
``read_price``, ``write_price``, ``output_price``), with ``H`` the messages carried now, ``S`` what is carried
right after it (the summary ``s``, the kept tail, and for a client summary the quoted user texts and
re-attached files at most), ``N`` the requests still to come:

- compacting: the summary call reads ``H`` from the cache; when ``H`` fits the summary call it is sent
  whole, an extension of the last request, and ``G = 0`` (compact.build_summary_request); else it stops at
  the cut, reads up to the stable frontier (frontier.py: on a bound model the last cut) and writes the gap
  ``G`` from there to the cut; and ``s`` tokens of output; the
  first request after it writes ``S`` anew; the ``N - 1`` after that read ``S``:
  ``read H + write G + output s + write S + (N - 1) read S``;
- not compacting: ``N`` requests read ``H``: ``N read H``.

So a compaction pays when ``(N - 1) * read * (H - S) >= output * s + write * (S + G)``. The right side is
its **price** (:func:`compaction_price`, :func:`unread_before`); ``read * (H - S)`` is the **rent** every
request pays for not having compacted. ``N`` is unknown; as for policy.py's batches, two conditions
together decide:

- *ski rental*: the rent already paid since the last compaction (or since the session began) reaches the
  price. In a session growing by ``g`` tokens a request, that is the best steady rhythm: compacting every
  ``k`` requests costs ``price / k + read * g * k / 2`` per request, lowest where the rent accumulated
  (``read * g * k**2 / 2``) equals the price; and a session that ends before the rent reaches the price
  never paid more than twice what hindsight would have;
- *the expected remaining session*: with ``N`` from policy.py's ``expected_remaining`` (a session that has
  answered ``n`` requests is expected to make ``n`` more), the saving over ``N - 1`` requests beats the price.
  A short session therefore never compacts early: before the rent paid reaches the price it has only paid
  what carrying everything costs, which is what sending everything would have paid.

What the rule does not price: the references the summary drops (the verbatim tail keeps the recent ones);
it is the same cut a compaction at the threshold makes, only earlier. The window-forced compaction
(``compact_at``) stays as it was: this rule only ever brings a summary forward.

``S`` counts the fold a compaction makes (fold.py: the settled turns of the tail become an index), planned
only once the rent paid could reach a price (it exceeds the summary's output price).

Work per call: the tail walk of ``choose_cut`` and the fold's scan are bounded by the tail budget (a share
of the window), not by the length of the session; the rent is one running sum.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .compact import auto_cut, summary_input_limit
from .config import ContextConfig
from .fold import plan_fold
from .history import History
from .policy import expected_remaining


def kept_after(history: History, config: ContextConfig, summary_tokens: float,
               extras: Callable[[int], float] | None = None) -> tuple[int | None, float]:
    """(the cut a compaction would make now, the message tokens carried right after it); (None, 0) when
    there is nothing worth summarising (compact.choose_cut's cut). extras: what a client summary adds at
    that cut (the quoted user texts, the re-attached files); None: their budgets, at most."""
    best, tail = auto_cut(history, config)
    if best is None:
        return None, 0.0
    if config.thinking_bound and config.server_compaction:
        added = 0.0
    elif extras is not None:
        added = extras(best)
    else:
        added = config.user_text_budget_tokens + config.reattach_total_tokens
    return best, summary_tokens + tail + added


def unread_before(history: History, cut: int, held: int | None) -> float:
    """What the summary call writes: the messages between the cached frontier `held` and the cut (all of
    them before the cut when nothing is held). Work: the gap, or one subtraction."""
    if held is None or held >= cut:
        return float(history.msg_tokens.prefix(cut)) if held is None else 0.0
    return float(history.msg_tokens.between(held + 1, cut))


def compaction_price(config: ContextConfig, summary_tokens: float, kept: float) -> float:
    """What a compaction costs beyond the requests it replaces: the summary's output, the kept part re-written."""
    return config.output_price * summary_tokens + config.write_price * kept


def summary_now(history: History, config: ContextConfig, summary_tokens: float, held: int | None,
                fold: bool = True, extras: Callable[[int], float] | None = None) -> tuple[float, float] | None:
    """(what a summary now costs beyond the requests it replaces, the message tokens carried right after it);
    None when there is nothing to summarise. fold: count the fold the compaction makes of its settled turns;
    extras: as kept_after. Also what a pressure batch is weighed against (policy.py)."""
    cut, kept = kept_after(history, config, summary_tokens, extras)
    if cut is None:
        return None
    if fold and config.fold_settled:
        planned = plan_fold(history, cut, config.tokens)
        if planned is not None:
            kept -= planned.folded_tokens - config.tokens(len(planned.text))
    # a history the summary call can carry whole is sent whole: it extends the last request and reads its
    # cache (compact.build_summary_request); else it stops at the cut and writes what lies past the frontier
    gap = 0.0 if history.total_tokens <= summary_input_limit(config) else unread_before(history, cut, held)
    return compaction_price(config, summary_tokens, kept) + config.write_price * gap, kept


@dataclass
class CompactionClock:
    """The rent paid since the last compaction for carrying what a summary would have let go."""

    rent_paid: float = 0.0

    def reset(self) -> None:
        self.rent_paid = 0.0

    def due(self, config: ContextConfig, history: History, summary_tokens: float, calls: int,
            held: int | None = None) -> bool:
        """Whether a compaction pays now (module docstring); otherwise this request's rent is counted.
        held: the message the cache holds the conversation up to at a breakpoint (the last request's frontier):
        the summary call writes what lies between it and the cut."""
        if not config.priced_compaction:
            return False
        # the fold is planned only once the rent paid could reach a price (it exceeds the summary's output)
        option = summary_now(history, config, summary_tokens, held,
                             fold=self.rent_paid >= config.output_price * summary_tokens)
        if option is None:
            return False
        price, kept = option
        rent = config.read_price * max(0.0, history.total_tokens - kept)
        if rent > 0 and self.rent_paid >= price and (expected_remaining(calls) - 1) * rent >= price:
            return True
        self.rent_paid += rent
        return False
