"""The context engine: append, prepare a request, account usage, compact.

``prepare`` is called before every model call. It runs the layers through
the cache-aware policy and says whether a summary (L3) is due; the caller
(the agent, or the replay) asks its summarizer and hands the text back to
``apply_summary``. Nothing here does I/O but the store it is handed.

When the model binds thinking to its prefix (``ContextConfig.thinking_bound``, binding.py) nothing before
the last carried thinking block may change, so the window is kept otherwise: results are shaped before
they are first sent (L0 at append); the API clears old results itself when it can
(``Prepared.context_management``, server_editing.py; ``record_applied_edits``); a summary replaces the old
turns in the binding-safe form (``apply_summary``, or the API's own ``apply_server_compaction``), the kept
turns without their thinking; and only when nothing else fits, the last resort rewrites and releases the
thinking from its first change on (``EngineCore.rewriting``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from . import reporting
from . import rewrite as rw
from .binding import binding_end, first_changed, released_messages
from .blocks import Block, Message, result_text, shown_text
from .compact import (PINNED_MARK, SummaryError, SummaryRequest, build_summary_request, choose_cut,
                      compacted_messages, once, parse_summary, reattached_files, restated_system,
                      select_user_texts, server_instructions, user_texts_before)
from .compaction_timing import summary_now
from .engine_input import EngineInput
from .fit import fit_to_window
from .fold import Fold, plan_fold, store_folded
from .fold_turns import fold_turns
from .history import History
from .keep_images import drop_to_fit
from .microcompact import is_idle, tail_expired
from .omit_turns import omit_oldest_turns
from .policy import Batch, plan_batch, plan_emergency
from .prompt_cache import message_breakpoints
from .report import BindingFigures, ContextReport, Placeholder
from .server_editing import cleared_by_server, context_management
from .store import result_ref


MIN_SUMMARISED_TOKENS = 300  # below this, a summary message costs as much as what it replaces


@dataclass
class Prepared:
    messages: list[Message]
    estimate: int
    utilization: float
    compaction_due: bool
    batch: Batch | None = None  # rewrites carried out by this call
    frontier: int | None = None  # the stable frontier: a cache breakpoint goes on this message
    previous_frontier: int | None = None  # the one before this call's batch: still to be read once
    context_management: dict[str, Any] | None = None  # the `context_management` parameter to send (None: none)
    # bound thinking: the previous request's frontier, which this request's breakpoints need not read
    held_frontier: int | None = None

    @property
    def cached_frontier(self) -> int | None:
        """The frontier the cache holds from the previous request (where a summary request reads)."""
        if self.previous_frontier is not None:
            return self.previous_frontier
        return self.frontier if self.held_frontier is None else self.held_frontier


@dataclass
class CompactionResult:
    tokens_before: int
    tokens_after: int
    summary: str  # the summary the model wrote ("" when nothing changed)
    reason: str
    message: str = ""  # the whole summary message as the model now sees it
    compacted: bool = True
    note: str = ""  # why nothing changed


class NothingToGain(SummaryError):
    """The summary message would not be smaller than what it replaces: the history is kept."""


@dataclass
class ContextEngine(EngineInput):
    """The engine: append (engine_input.py), prepare a request, account usage (engine_core.py), compact."""

    # -- the pipeline ----------------------------------------------------------

    def prepare(self, now: float, *, allow_compaction: bool = True) -> Prepared:
        """The request to send next; may rewrite old blocks (in one batch)."""
        if self.history.last_role != "user":
            raise ValueError("a request is prepared only after a user message")
        idle = is_idle(self.config, now, self.last_call_at, self.cache_ttl)
        self._keep_images()  # a restored or appended history too
        # Under a 1-hour TTL a pause past 5 minutes leaves the prefix up to the frontier cached but the
        # tail written anew: rewrites (all after the frontier) are free then, without being idle.
        cold = self.cache_cold or tail_expired(self.config, now, self.last_call_at)
        # Bound thinking: no batch of old messages at all (policy.py); results were shaped at append.
        batch = None if self.config.thinking_bound else plan_batch(
            self.history, self.config, self.estimate(), cold=cold, idle=idle, waste=self.waste,
            cached_ends=self.cached_ends, unseen=self.unseen, calls=self.calls,
            growth=self.appended / (self.calls + 1),
            summary=self._summary_option)
        if batch is not None and batch.reason == "payback" and not self._within_risk(batch):
            # a bet the session could not cover if it ended now (risk.py); a part of it would rewrite the same
            # tail (the cache is read only up to a breakpoint), so all of it waits
            batch.reason = ""
        if batch is not None and batch.reason:
            with self.rewriting():
                self._apply(batch)
            self.waste = 0.0
        elif batch is not None:
            self.waste += batch.rent  # this request carries them once more
            batch = None
        estimate = self.estimate()
        over = estimate / self.config.effective_window >= self.config.compact_at
        can_summarise = allow_compaction and self._summarisable
        if can_summarise and not over and not cold:  # a summary brought forward when it pays (compaction_timing.py)
            over = self.compaction_clock.due(self.config, self.history, self.expected_summary_tokens(), self.calls,
                                             held=self.sent_frontier)
        due = over and can_summarise and choose_cut(self.history, self.config) is not None
        if not due and estimate > self.config.effective_window:
            with self.rewriting():
                batch = self._last_resort() or batch
            estimate = self.estimate()
        if self._dropped_unsent:
            self._dropped_unsent = 0
            batch = batch or Batch("images")  # a deliberate rewrite this request is the first to carry
        frontier = self._frontier.of(self.history, self.config)
        # Bound thinking has no batches: nothing needs the old frontier read, the previous user message keeps
        # its breakpoint (a tool loop reads the previous call's cache)
        moved = self.sent_frontier != frontier and not self.config.thinking_bound
        previous = self.sent_frontier if moved else None
        held = self.sent_frontier if self.config.thinking_bound else None
        self.cached_ends = message_breakpoints(self.history.messages, frontier, previous_frontier=previous)
        self.sent_frontier = frontier
        editing = self.editing.decide(self.config, self.history, estimate, compaction_possible=self._summarisable)
        return Prepared(list(self.history.messages), estimate, estimate / self.config.effective_window, due,
                        batch, frontier, previous, context_management(self.config) if editing else None, held)

    @property
    def _summarisable(self) -> bool:
        """An automatic summary may be asked for: allowed, and the breaker has not tripped."""
        return self.config.auto_compact and self.summary_failures < self.config.breaker_failures

    def _user_texts_before(self, cut: int) -> list[str]:
        """The user's words a summary at `cut` would quote from: those earlier summaries carried, then the
        ones before the cut (compact.user_texts_before)."""
        return self._carried_user_texts + user_texts_before(self.history, cut)

    def _summary_option(self) -> tuple[float, float] | None:
        """(price, tokens kept) of a summary now; None when none can be had (what a pressure batch beats).
        Asked only over the threshold, where a summary is due unless the batch wins: the user texts and
        files it would add are counted as they are, not at their budgets."""
        if not self._summarisable:
            return None
        return summary_now(self.history, self.config, self.expected_summary_tokens(), self.sent_frontier,
                           extras=self._summary_extras)

    def _summary_extras(self, cut: int) -> float:
        """The tokens a client summary at `cut` adds: the user texts it quotes, the files it re-attaches."""
        quoted = select_user_texts(once(self._user_texts_before(cut)), self.config)
        files = reattached_files(self.history, self.config, cut, self.store)
        return float(sum(self.config.tokens(len(text)) for text in [*quoted, *files]))

    def _last_resort(self) -> Batch | None:
        """No summary can be had and the request is over the window: clear everything clearable, cut the
        largest blocks, let the oldest images go (run inside `rewriting`: bound thinking is released)."""
        batch = None
        emergency = plan_emergency(self.history, self.config, self.unseen)
        if emergency.rewrites:
            self._apply(emergency)
            self.waste = 0.0
            batch = emergency
        cut = fit_to_window(self.history, self.config, self.store, self.estimate)
        if cut:
            self.stats[rw.TRUNCATE].count += cut
            batch = batch or Batch("fit")
        gone = drop_to_fit(self.history, lambda: self.estimate() > self.config.effective_window)
        if gone:
            self.images_dropped += gone
            batch = batch or Batch("fit")
        excess = self.estimate() - self.config.effective_window
        if excess > 0 and (lowest := omit_oldest_turns(self.history, self.store, excess)) >= 0:
            self._frontier.rewind(lowest)  # the indices shifted: what the engine holds by index goes
            self.cached_ends, self.sent_frontier = [], None
            self.layer_of = {i: layer for i, layer in self.layer_of.items() if i in self.history.records}
            self.stats[rw.TRUNCATE].count += 1
            batch = batch or Batch("fit")
        return batch

    def _within_risk(self, batch: Batch) -> bool:
        """Whether a payback batch is within the risk budget (risk.py; its price scaled by batch_payoff, as
        in every rule); always once sending everything would be over the compaction threshold (it is then
        no comparator)."""
        share = self.config.rewrite_risk
        everything = self.estimate() + self.risk.removed
        if share is None or everything >= self.config.compact_at * self.config.effective_window:
            return True
        price = self.config.batch_payoff * batch.price
        return price <= 0 or price <= self.risk.budget(share)  # what costs nothing risks nothing

    def _apply(self, batch: Batch) -> None:
        self.risk.batch(batch.saves, batch.price)
        folds = sorted({item.message for item in batch.rewrites if item.layer == rw.FOLD})
        for item in batch.rewrites:
            if item.layer == rw.FOLD:
                continue  # after the rest: the turn's blocks are stored and rewritten first
            freed = rw.apply(item, self.history, self.store, keep_thinking=self.config.thinking_bound)
            layer = rw.MICROCOMPACT if batch.reason == "idle" and item.layer == rw.CLEAR else item.layer
            self.stats[layer].count += 1
            self.stats[layer].tokens_saved += freed
            if not item.on_input:
                self.layer_of[item.tool_use_id] = layer
        if folds:
            self._fold_turns(folds)

    def _fold_turns(self, calls: list[int]) -> None:
        """The turns at `calls` leave the history, an index line each (fold_turns.py); the message indices
        after the first one shift, so what the engine holds by index from there on is let go."""
        before = self.history.total_tokens
        landing, gone, lines = fold_turns(self.history, calls, self.store)
        for index, message in landing.items():
            self.history.replace_message(index, message)
        self._frontier.rewind(self.history.drop_messages(gone))
        self.stats[rw.FOLD].count += len(calls)
        self.stats[rw.FOLD].tokens_saved += before - self.history.total_tokens
        self.folded_lines.update(lines)
        for tool_use_id in lines:  # left the history: as a restored engine, nothing by layer for it
            self.layer_of.pop(tool_use_id, None)
        self.cached_ends = [end for end in self.cached_ends if end < calls[0]]
        if self.sent_frontier is not None and self.sent_frontier >= calls[0]:
            self.sent_frontier = None

    # -- L3 --------------------------------------------------------------------

    def summary_request(self, instructions: str | None = None, manual: bool = False) -> SummaryRequest | None:
        """What to send the summarizer, or None when there is nothing to summarise."""
        self._keep_images()  # the summary request is a request too
        request = build_summary_request(self.history, self.config, self.estimate(), instructions, manual)
        if request is not None and self.history.msg_tokens.prefix(request.cut) < MIN_SUMMARISED_TOKENS:
            return None  # no summary could be shorter than this: nothing to gain
        if request is not None and self.config.thinking_bound:
            # Left out the oldest turns to fit (compact.py): the thinking after the change is not carried.
            first = first_changed(self.history.messages, request.messages)
            if first is not None and first < binding_end(request.messages):
                request.messages, _ = released_messages(request.messages, first)
        return request

    def apply_summary(self, request: SummaryRequest, raw_text: str, reason: str = "auto") -> CompactionResult:
        """Replace the history before the cut by the summary; never grows the context.

        The summary message sheds re-attached files, then the user's quoted words,
        until the new history is smaller than the old; if even the bare summary is
        not, NothingToGain is raised and nothing changes.
        """
        if len(self.history.messages) != request.history_length:
            raise ValueError("the history changed while the summary was being written")
        try:
            summary = parse_summary(raw_text)
        except SummaryError:
            self.summary_failed()
            raise
        texts = self._user_texts_before(request.cut)
        raw_before = self.raw_estimate
        rebuilt = None
        fold = self._fold(request.cut)
        for quoted, files in ((texts, True), (texts, False), ([], False)):
            messages = compacted_messages(self.history, self.config, request.cut, summary, quoted,
                                          self.store, files=files, pinned=self.pinned, fold=fold)
            candidate = self.history.rebuilt(messages)
            if self.config.system_tokens + candidate.total_tokens < raw_before:
                rebuilt = candidate
                break
        if rebuilt is None:
            if reason != "manual":
                self.summary_failed()  # else every request would ask for the same useless summary
            raise NothingToGain("the summary would not be smaller than the conversation it replaces")
        self._carried_user_texts = texts
        return self._install(rebuilt, request.cut, summary, reason)

    def _install(self, rebuilt: History, cut: int, summary: str, reason: str) -> CompactionResult:
        """Put a compacted history in place of the messages before `cut` (binding-safe: the kept turns lose
        their thinking, bound to a prefix that is gone)."""
        raw_before, before = self.raw_estimate, self.estimate()
        self._keep_summarised_results(cut)
        with self.rewriting():
            self.history = rebuilt
        # The old anchor describes a prompt that no longer exists; its real/estimated
        # ratio still holds for what is left until the next call measures it.
        self.meter.rebase(raw_before, self.raw_estimate)
        self.cached_ends, self.sent_frontier = [], None
        self.cache_cold = True
        self.waste = 0.0
        self.summary_failures = 0
        self.compactions += 1
        self.risk.summarised()
        self.cleared_by_api = {}
        self.folded_lines = {}  # summarised now: the compaction's divider says so
        self.editing.reset()
        self.compaction_clock.reset()
        self.summary_tokens = self.config.tokens(len(summary))
        after = self.estimate()
        self.stats[rw.COMPACT].count += 1
        self.stats[rw.COMPACT].tokens_saved += before - after
        shown = "\n\n".join(shown_text(b) for b in self.history.messages[0]["content"] if shown_text(b))
        return CompactionResult(before, after, summary, reason, message=shown)

    # -- server-side context management (bound thinking) ---------------------------

    def record_applied_edits(self, edits: Iterable[Mapping[str, Any]]) -> None:
        """After a response: what the API's context editing cleared in that request (its
        `context_management.applied_edits`). The ids are "cleared by the API" in the report and the
        placeholders; their originals stay readable by their context:// ref."""
        cleared = cleared_by_server(self.history, list(edits), self.config.protected_tools)
        for tool_use_id in cleared:
            block = self.history.result_block(tool_use_id)
            if block is not None:
                self.store.put(result_ref(tool_use_id), result_text(block))
        self.cleared_by_api = dict.fromkeys(cleared)

    def compaction_cut(self, manual: bool = False) -> int | None:
        """Where a compaction may end (an assistant message: the kept turns start there), None when there
        is nothing worth it: the API's on-demand compaction is sent `history.messages[:cut]` and then
        `apply_server_compaction(block, reason, upto=cut)` keeps the turns from the cut."""
        return choose_cut(self.history, self.config, manual)

    def compaction_instructions(self, cut: int, instructions: str | None) -> str | None:
        """The user's instructions for the API's compaction up to `cut`, with what the summary must keep."""
        return server_instructions(self.history, cut, instructions)

    def apply_server_compaction(self, block: Block, reason: str, upto: int | None = None) -> CompactionResult:
        """Put the API's `compaction` block (on-demand compaction of the first `upto` messages, all by
        default) first in the history, as documented (the SDK's BetaCompactionConfigParam: "a later request
        sends [it] back first in `messages`, in place of the messages it summarizes"), the pinned state
        after it in the same message, the system messages it replaced restated, then the kept turns.
        A block with `content: null` is a failed compaction (the server treats it as a no-op): nothing changes."""
        upto = len(self.history.messages) if upto is None else upto
        if block.get("content") is None:
            estimate = self.estimate()
            return CompactionResult(estimate, estimate, "", reason, compacted=False,
                                    note="the API could not compact the conversation")
        if upto < len(self.history.messages) and self.history.messages[upto]["role"] != "assistant":
            raise ValueError("the kept turns after a compaction start with a reply")
        first: list[Block] = [dict(block)]
        if self.pinned:
            first.append({"type": "text", "text": f"{PINNED_MARK}\n{self.pinned}"})
        fold = self._fold(upto)
        if fold is not None:
            first.append({"type": "text", "text": fold.text})
        tail = fold.kept(self.history.messages) if fold is not None else self.history.messages[upto:]
        messages = [{"role": "user", "content": first}, *restated_system(self.history, upto), *tail]
        self._carried_user_texts = []
        return self._install(self.history.rebuilt(messages), upto, str(block.get("content")), reason)

    def _fold(self, cut: int) -> Fold | None:
        """The settled turns at the start of the tail a compaction keeps from `cut`, folded into an index
        (fold.py): their results stored first. None when folding is off or nothing is settled."""
        if not self.config.fold_settled or cut >= len(self.history.messages):
            return None
        fold = plan_fold(self.history, cut, self.config.tokens)
        if fold is not None:
            store_folded(self.history, fold, self.store)
            self.folded.count += len(fold.turns)
            self.folded.tokens_saved += fold.folded_tokens - self.config.tokens(len(fold.text))
        return fold

    def _keep_summarised_results(self, cut: int) -> None:
        """Every result summarised away stays readable by its ref (first write wins)."""
        for record in self.history.records.values():
            if record.use_msg < cut and record.result_msg is not None and record.state == "":
                block = self.history.result_block(record.id)
                if block is not None:
                    self.store.put(result_ref(record.id), result_text(block))

    def summary_failed(self) -> None:
        """A summary call failed; after a few in a row, auto-compaction stops trying."""
        self.summary_failures += 1

    # -- reports -----------------------------------------------------------------

    def report(self, tools_tokens: int = 0, instructions_tokens: int = 0) -> ContextReport:
        """What the model sees: the figures of every context view (the head's parts as the caller counts them)."""
        cfg = self.config
        estimate = self.estimate()
        return ContextReport(
            window=cfg.window,
            effective_window=cfg.effective_window,
            used=estimate,
            utilization=round(estimate / cfg.effective_window, 4),
            level=self.level(),
            categories=reporting.categories(cfg, self.history, tools_tokens, instructions_tokens),
            layers=reporting.layer_figures(self.stats),
            next_request=self.next_request(estimate),
            auto_compact_at=cfg.compact_at if cfg.auto_compact else None,
        )

    def binding_figures(self) -> BindingFigures:
        """What bound thinking made the engine let go: released thinking blocks, results the API cleared."""
        return BindingFigures(self.released.count, self.released.tokens_saved, tuple(self.cleared_by_api))

    def next_request(self, estimate: int) -> str:
        """What preparing the next request will do about the size: none, compact, trim or too large."""
        return reporting.next_request(self.config, self.history, estimate, self.summary_failures, self.unseen)

    def placeholders(self) -> list[Placeholder]:
        return reporting.placeholders(self.history, self.cleared_by_api)
