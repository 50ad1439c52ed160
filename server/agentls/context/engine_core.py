"""The context engine's state, accounting, and the guard every rewrite of a sent message goes through.

pipeline.py builds the engine on this: engine_input.py appends, pipeline.py prepares and compacts.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from . import rewrite as rw
from .binding import binding_end, first_changed, release_thinking
from .blocks import Block
from .compaction_timing import CompactionClock
from .config import ContextConfig
from .frontier import StableFrontier
from .history import History
from .prompt_cache import FIVE_MINUTES
from .risk import RiskLedger
from .reporting import LayerStat
from .server_editing import EditingSwitch
from .store import MemoryStore, ResultStore
from .tokens import TokenMeter
from .usage import Usage


@dataclass
class EngineCore:
    config: ContextConfig = field(default_factory=ContextConfig)
    store: ResultStore = field(default_factory=MemoryStore)

    def __post_init__(self) -> None:
        self.history = self._new_history()
        self.meter = TokenMeter()
        self.stats: dict[str, LayerStat] = {name: LayerStat() for name in (
            rw.TRUNCATE, rw.BUDGET, rw.SNIP, rw.CLEAR, rw.CLEAR_INPUT, rw.CLEAR_PROSE, rw.MICROCOMPACT, rw.FOLD,
            rw.SUPERSEDE, rw.CLEAR_TEXT, rw.COMPACT)}
        self.last_call_at: float | None = None
        self.cache_ttl = FIVE_MINUTES  # the TTL the last request gave the head and the stable frontier
        self.cache_cold = True  # nothing cached yet: rewrites cost nothing extra
        self.calls = 0  # requests answered this session: what the policy estimates the rest from
        self.appended = 0  # tokens of every message appended this session: its growth per request (policy.py)
        self.waste = 0.0  # rent paid since the last batch for blocks a batch could have freed (policy.py)
        self.risk = RiskLedger()  # what a payback batch may still risk against sending everything (risk.py)
        self._appended_at_call = 0  # `appended` at the last answered request
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
        self.released = LayerStat()  # thinking blocks let go by deliberate rewrites (binding.py), and their tokens
        self.cleared_by_api: dict[str, None] = {}  # results the API cleared in the last request (server_editing.py)
        self.editing = EditingSwitch()  # whether requests carry the API's context editing (server_editing.py)
        self.compaction_clock = CompactionClock()  # rent paid for what a summary would free (compaction_timing.py)
        self.folded_lines: dict[str, str] = {}  # tool_use_id -> its index line, of the calls folded (fold_turns.py)
        self.folded = LayerStat()  # settled turns a compaction folded into its index (fold.py), and the tokens freed
        self.summary_tokens = 0  # the last summary's size (0: none yet; the price assumes summary_max_tokens)

    def _new_history(self) -> History:
        cfg = self.config
        history = History(
            large_result_chars=cfg.budget_hard_chars,
            large_input_chars=cfg.clear_inputs_min_chars,
            token_of=cfg.tokens,
            protected_tools=cfg.protected_tools,
            protected_max_chars=cfg.protected_max_chars,
            kept_input_tools=cfg.kept_input_tools,
        )
        history.text_results.enabled = cfg.text_calls
        return history

    # -- settings --------------------------------------------------------------

    def reconfigure(self, config: ContextConfig) -> None:
        """New thresholds apply from the next prepare; the history is kept."""
        self.config = config
        self.history.large_result_chars = config.budget_hard_chars
        self.history.large_input_chars = config.clear_inputs_min_chars
        self.history.text_results.enabled &= config.text_calls  # off stays off: what came before is not indexed

    # -- accounting ------------------------------------------------------------

    @property
    def raw_estimate(self) -> int:
        return self.config.system_tokens + self.history.total_tokens

    def estimate(self) -> int:
        return self.meter.estimate(self.raw_estimate)

    def utilization(self) -> float:
        return self.estimate() / self.config.effective_window

    def expected_summary_tokens(self) -> int:
        """What the next summary is expected to cost in output: the last one's size, else its limit."""
        return self.summary_tokens or self.config.summary_max_tokens

    def level(self) -> str:
        u = self.utilization()
        if u >= self.config.high_at:
            return "high"
        return "warn" if u >= self.config.warn_at else "ok"

    def record_usage(self, usage: Usage, now: float, estimate_at_call: int | None = None,
                     cache_ttl: str = FIVE_MINUTES) -> None:
        """After a model call: anchor the estimate on the real prompt size. ``cache_ttl``: the TTL the
        call gave its head and frontier breakpoints (how long a pause leaves that prefix cached)."""
        prompt = self.raw_estimate if estimate_at_call is None else estimate_at_call
        self.risk.request(usage.prompt_tokens or prompt, self.appended - self._appended_at_call,
                          self.config.read_price, self.config.write_price,
                          self.config.output_price * usage.output_tokens)
        self._appended_at_call = self.appended
        self.meter.record(usage, prompt)
        self.last_call_at = now
        self.calls += 1
        self.cache_ttl = cache_ttl
        self.cache_cold = False
        self.unseen.clear()  # the request just answered carried every result in the history

    @contextmanager
    def rewriting(self) -> Iterator[None]:
        """The one guard around every change to a message already sent (layers, last resort, images, user
        texts, compaction). Under bound thinking, a change before the last carried thinking block releases
        every thinking block from the first changed message on (binding.py), counted in `released`."""
        before = list(self.history.messages) if self.config.thinking_bound else None
        yield
        if before is None:
            return
        first = first_changed(before, self.history.messages)
        if first is not None and first < binding_end(before):
            count, tokens = release_thinking(self.history, first)
            self.released.count += count
            self.released.tokens_saved += tokens
            if count:
                self.cache_cold = True  # the prompt changed from `first` on: nothing after it is read

