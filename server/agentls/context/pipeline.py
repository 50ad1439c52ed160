"""The context engine: append, prepare a request, account usage, compact.

``prepare`` is called before every model call. It runs the layers through
the cache-aware policy and says whether a summary (L3) is due; the caller
(the agent, or the replay) asks its summarizer and hands the text back to
``apply_summary``. Nothing here does I/O but the store it is handed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import rewrite as rw
from .blocks import Block, Message, blocks_of, result_text
from .compact import (SummaryError, SummaryRequest, build_summary_request, choose_cut, compacted_messages,
                      parse_summary, user_texts_before)
from .config import ContextConfig
from .fit import fit_to_window
from .frontier import StableFrontier
from .history import History
from .images import ImageError, block_image_tokens, check_turn_images, image_of_block, is_image
from .keep_images import drop_to_fit, keep_within_limits
from .microcompact import is_idle, tail_expired
from .oversize import USER_SHARE, fit_history, fit_user_blocks
from .placeholders import parse_cleared_prose
from .policy import Batch, plan_batch, plan_emergency
from .prompt_cache import FIVE_MINUTES, message_breakpoints
from .report import COMPACT, NONE, TOO_LARGE, TRIM, Categories, ContextReport, LayerFigure, Placeholder
from .store import MemoryStore, ResultStore, input_ref, result_ref
from .tokens import TokenMeter
from .usage import Usage
from .truncate import cut_oversized, truncate_results


MIN_SUMMARISED_TOKENS = 300  # below this, a summary message costs as much as what it replaces


@dataclass
class LayerStat:
    count: int = 0
    tokens_saved: int = 0


@dataclass
class Prepared:
    messages: list[Message]
    estimate: int
    utilization: float
    compaction_due: bool
    batch: Batch | None = None  # rewrites carried out by this call
    frontier: int | None = None  # the stable frontier: a cache breakpoint goes on this message
    previous_frontier: int | None = None  # the one before this call's batch: still to be read once

    @property
    def cached_frontier(self) -> int | None:
        """The frontier the cache holds from the previous request (where a summary request reads)."""
        return self.frontier if self.previous_frontier is None else self.previous_frontier


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
class ContextEngine:
    config: ContextConfig = field(default_factory=ContextConfig)
    store: ResultStore = field(default_factory=MemoryStore)

    def __post_init__(self) -> None:
        self.history = self._new_history()
        self.meter = TokenMeter()
        self.stats: dict[str, LayerStat] = {name: LayerStat() for name in (
            rw.TRUNCATE, rw.BUDGET, rw.SNIP, rw.CLEAR, rw.CLEAR_INPUT, rw.CLEAR_PROSE, rw.MICROCOMPACT, rw.COMPACT)}
        self.last_call_at: float | None = None
        self.cache_ttl = FIVE_MINUTES  # the TTL the last request gave the head and the stable frontier
        self.cache_cold = True  # nothing cached yet: rewrites cost nothing extra
        self.waste = 0.0  # rent paid since the last batch for blocks a batch could have freed (policy.py)
        self.summary_failures = 0
        self.compactions = 0
        self._carried_user_texts: list[str] = []
        self._frontier = StableFrontier()
        self.cached_ends: list[int] = []  # message breakpoints of the last prepared request
        self.sent_frontier: int | None = None  # the stable frontier of the last prepared request
        self.layer_of: dict[str, str] = {}  # tool_use_id -> the layer that rewrote its result
        # results that arrived after the last answered request (or reply): the model has not seen them
        # (policy.py); a restored history keeps only its trailing results unseen
        self.unseen: dict[str, None] = {}
        # State the caller keeps current (the task list): a compaction's summary message carries it verbatim.
        self.pinned = ""
        self.images_dropped = 0  # images the history let go (keep_images.py), this session
        self._dropped_unsent = 0  # …of which no prepared request told yet (it reports them as a batch)
        self.pending_system: list[Block] = []  # system blocks waiting for the next user turn

    def _new_history(self) -> History:
        cfg = self.config
        return History(
            large_result_chars=cfg.budget_hard_chars,
            large_input_chars=cfg.clear_inputs_min_chars,
            token_of=cfg.tokens,
            protected_tools=cfg.protected_tools,
            kept_input_tools=cfg.kept_input_tools,
        )

    # -- settings --------------------------------------------------------------

    def reconfigure(self, config: ContextConfig) -> None:
        """New thresholds apply from the next prepare; the history is kept."""
        self.config = config
        self.history.large_result_chars = config.budget_hard_chars
        self.history.large_input_chars = config.clear_inputs_min_chars

    # -- appending -------------------------------------------------------------

    def append(self, message: Message) -> list[str]:
        """Append a message (L0 applied to its results); returns the ids L0 cut."""
        message, cut_ids = truncate_results(message, self.config.truncate_chars, self.store)
        message, cut_blocks = cut_oversized(message, self.config.oversized_chars, self.store)
        self.stats[rw.TRUNCATE].count += cut_blocks
        self.history.append(message)
        self._place_pending_system()
        if message.get("role") == "assistant":
            self.unseen.clear()  # a reply answers a request that carried every result before it
        else:
            for block in blocks_of(message):
                if block.get("type") == "tool_result":
                    self.unseen[block["tool_use_id"]] = None
        for tool_use_id in cut_ids:
            record = self.history.records[tool_use_id]
            record.state = "truncated"
            self.layer_of[tool_use_id] = rw.TRUNCATE
            original = self.store.get(result_ref(tool_use_id)) or ""
            record.original_chars = len(original)
            self.stats[rw.TRUNCATE].count += 1
            self.stats[rw.TRUNCATE].tokens_saved += self.config.tokens(len(original) - record.chars)
        return cut_ids

    def add_user_turn(self, blocks: list[Block]) -> list[Block]:
        """What the user sent, its texts cut losslessly to their share of the window (oversize.py),
        which its images take first; returns the blocks as kept (what a session log saves).

        Images are never cut: a turn whose images cannot fit (images.check_turn_images)
        raises ImageError and nothing is added.
        """
        image_tokens = self.check_images(blocks)
        text_budget = max(0, self.user_budget_chars(USER_SHARE) - int(image_tokens * self.config.chars_per_token))
        blocks, _ = fit_user_blocks(blocks, text_budget, self.store)
        self.add_user_blocks(blocks)
        self._keep_images()
        return blocks

    def _keep_images(self) -> int:
        """The API's image limits, whatever the window: the oldest images beyond them go (keep_images.py)."""
        dropped = keep_within_limits(self.history)
        self.images_dropped += dropped
        self._dropped_unsent += dropped
        return dropped

    def check_images(self, blocks: list[Block]) -> int:
        """The tokens of a new turn's images; ImageError when they cannot fit in a request."""
        images = [b for b in blocks if is_image(b)]
        if not images:
            return 0
        readable = [image_of_block(b) for b in images]
        if any(item is None for item in readable):
            raise ImageError("an image of this message is not a readable PNG, JPEG, GIF or WebP")
        check_turn_images([item for item in readable if item is not None], self.image_budget_tokens())
        return sum(block_image_tokens(b) for b in images)

    def image_budget_tokens(self) -> int:
        """What one message's images may take: its share of the window."""
        return int(self.config.effective_window * USER_SHARE)

    def add_user_blocks(self, blocks: list[Block]) -> Message:
        """A new user turn; merged into a trailing user message that got no answer."""
        cut, count = cut_oversized({"role": "user", "content": blocks}, self.config.oversized_chars, self.store)
        blocks = cut["content"]
        self.stats[rw.TRUNCATE].count += count
        if self.history.last_role == "user":
            self.history.extend_last_user(blocks)
        else:
            self.history.append({"role": "user", "content": blocks})
            self._place_pending_system()
        return self.history.messages[self.history.last_turn()]

    def add_system_message(self, blocks: list[Block]) -> None:
        """Instructions as a ``role: "system"`` message, where the docs put one: right after the last user
        turn, before its reply (history.py). After a reply there is no such place until the next user turn:
        the blocks wait and follow it. A trailing system message takes the blocks (one, never two in a row).
        Never snipped, cleared or cut; a compaction restates it."""
        if not blocks:
            return
        if self.history.last_role != "user":
            self.pending_system.extend(blocks)
        elif self.history.messages[-1]["role"] == "system":
            self.history.extend_last_system(list(blocks))
        else:
            self.history.append({"role": "system", "content": list(blocks)})

    def _place_pending_system(self) -> None:
        if self.pending_system and self.history.last_role == "user":
            blocks, self.pending_system = self.pending_system, []
            self.add_system_message(blocks)

    def user_budget_chars(self, share: float) -> int:
        return int(self.config.effective_window * share * self.config.chars_per_token)

    def fit_user_texts(self, share: float) -> int:
        """Cut user texts over `share` of the window, losslessly; how many were cut.

        A deliberate rewrite of the history: the prompt cache starts over, which
        only happens when a request would otherwise be refused.
        """
        messages, cut = fit_history(self.history.messages, self.user_budget_chars(share), self.store)
        if cut:
            self.history = self.history.rebuilt(messages)
            self.meter.reset()
            self.cache_cold = True
        return cut

    def prompt_head_changed(self) -> None:
        """The system prompt or the tool list changed: nothing cached is read, so rewrites are free."""
        self.cache_cold = True

    # -- accounting ------------------------------------------------------------

    @property
    def raw_estimate(self) -> int:
        return self.config.system_tokens + self.history.total_tokens

    def estimate(self) -> int:
        return self.meter.estimate(self.raw_estimate)

    def utilization(self) -> float:
        return self.estimate() / self.config.effective_window

    def level(self) -> str:
        u = self.utilization()
        if u >= self.config.high_at:
            return "high"
        return "warn" if u >= self.config.warn_at else "ok"

    def record_usage(self, usage: Usage, now: float, estimate_at_call: int | None = None,
                     cache_ttl: str = FIVE_MINUTES) -> None:
        """After a model call: anchor the estimate on the real prompt size. ``cache_ttl``: the TTL the
        call gave its head and frontier breakpoints (how long a pause leaves that prefix cached)."""
        self.meter.record(usage, self.raw_estimate if estimate_at_call is None else estimate_at_call)
        self.last_call_at = now
        self.cache_ttl = cache_ttl
        self.cache_cold = False
        self.unseen.clear()  # the request just answered carried every result in the history

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
        batch = plan_batch(self.history, self.config, self.estimate(), cold=cold, idle=idle,
                           waste=self.waste, cached_ends=self.cached_ends, unseen=self.unseen)
        if batch is not None and batch.reason:
            self._apply(batch)
            self.waste = 0.0
        elif batch is not None:
            self.waste += batch.rent  # this request carries them once more
            batch = None
        estimate = self.estimate()
        over = estimate / self.config.effective_window >= self.config.compact_at
        can_summarise = (allow_compaction and self.config.auto_compact
                         and self.summary_failures < self.config.breaker_failures)
        due = over and can_summarise and choose_cut(self.history, self.config) is not None
        if not due and estimate > self.config.effective_window:
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
            estimate = self.estimate()
        if self._dropped_unsent:
            self._dropped_unsent = 0
            batch = batch or Batch("images")  # a deliberate rewrite this request is the first to carry
        frontier = self._frontier.of(self.history, self.config)
        previous = self.sent_frontier if self.sent_frontier != frontier else None
        self.cached_ends = message_breakpoints(self.history.messages, frontier, previous_frontier=previous)
        self.sent_frontier = frontier
        return Prepared(list(self.history.messages), estimate,
                        estimate / self.config.effective_window, due, batch, frontier, previous)

    def _apply(self, batch: Batch) -> None:
        for item in batch.rewrites:
            freed = rw.apply(item, self.history, self.store)
            layer = rw.MICROCOMPACT if batch.reason == "idle" and item.layer == rw.CLEAR else item.layer
            self.stats[layer].count += 1
            self.stats[layer].tokens_saved += freed
            if not item.on_input:
                self.layer_of[item.tool_use_id] = layer

    # -- L3 --------------------------------------------------------------------

    def summary_request(self, instructions: str | None = None, manual: bool = False) -> SummaryRequest | None:
        """What to send the summarizer, or None when there is nothing to summarise."""
        self._keep_images()  # the summary request is a request too
        request = build_summary_request(self.history, self.config, self.estimate(), instructions, manual)
        if request is not None and sum(self.history.msg_tokens[:request.cut]) < MIN_SUMMARISED_TOKENS:
            return None  # no summary could be shorter than this: nothing to gain
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
        texts = self._carried_user_texts + user_texts_before(self.history, request.cut)
        raw_before = self.raw_estimate
        rebuilt = None
        for quoted, files in ((texts, True), (texts, False), ([], False)):
            messages = compacted_messages(self.history, self.config, request.cut, summary, quoted,
                                          self.store, files=files, pinned=self.pinned)
            candidate = self.history.rebuilt(messages)
            if self.config.system_tokens + candidate.total_tokens < raw_before:
                rebuilt = candidate
                break
        if rebuilt is None:
            if reason != "manual":
                self.summary_failed()  # else every request would ask for the same useless summary
            raise NothingToGain("the summary would not be smaller than the conversation it replaces")
        before = self.estimate()
        self._keep_summarised_results(request.cut)
        self.history = rebuilt
        self._carried_user_texts = texts
        # The old anchor describes a prompt that no longer exists; its real/estimated
        # ratio still holds for what is left until the next call measures it.
        self.meter.rebase(raw_before, self.raw_estimate)
        self.cached_ends, self.sent_frontier = [], None
        self.cache_cold = True
        self.waste = 0.0
        self.summary_failures = 0
        self.compactions += 1
        after = self.estimate()
        self.stats[rw.COMPACT].count += 1
        self.stats[rw.COMPACT].tokens_saved += before - after
        shown = "\n\n".join(b.get("text", "") for b in self.history.messages[0]["content"])
        return CompactionResult(before, after, summary, reason, message=shown)

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
        cats = self.history.category_tokens
        return ContextReport(
            window=cfg.window,
            effective_window=cfg.effective_window,
            used=estimate,
            utilization=round(estimate / cfg.effective_window, 4),
            level=self.level(),
            categories=Categories(system=max(0, cfg.system_tokens - tools_tokens - instructions_tokens)
                                  + cats["system_messages"],
                                  tools=tools_tokens, instructions=instructions_tokens, user=cats["user"],
                                  assistant=cats["assistant"], tool_results=cats["tool_results"]),
            layers=tuple(LayerFigure(name, stat.count, stat.tokens_saved) for name, stat in self.stats.items()),
            next_request=self.next_request(estimate),
            auto_compact_at=cfg.compact_at if cfg.auto_compact else None,
        )

    def next_request(self, estimate: int) -> str:
        """What preparing the next request will do about the size: none, compact, trim or too large."""
        cfg = self.config
        window = cfg.effective_window
        summarisable = (cfg.auto_compact and self.summary_failures < cfg.breaker_failures
                        and choose_cut(self.history, cfg) is not None)
        if estimate >= cfg.compact_at * window and summarisable:
            return COMPACT
        if estimate <= window:
            return NONE
        return TRIM if estimate - plan_emergency(self.history, cfg, self.unseen).saves <= window else TOO_LARGE

    def placeholders(self) -> list[Placeholder]:
        found = []
        for record in self.history.records.values():
            if record.state:
                found.append(Placeholder(record.id, record.name, record.state, result_ref(record.id),
                                         record.original_chars))
            if record.input_cleared:
                found.append(Placeholder(record.id, record.name, "clearedInput", input_ref(record.id),
                                         record.input_chars))
        for message in self.history.messages:  # the report is rare: a scan is fine
            if message["role"] != "assistant":
                continue
            for block in blocks_of(message):
                cleared = parse_cleared_prose(block.get("text", "")) if block.get("type") == "text" else None
                if cleared:
                    found.append(Placeholder("", "(assistant text)", "clearedProse", cleared[0], cleared[1]))
        return found
