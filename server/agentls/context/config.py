"""Every threshold of the context engine, in one place."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from .caps import TRUNCATE_CHARS
from .tokens import CHARS_PER_TOKEN, estimate_tokens


@dataclass
class ContextConfig:
    # Window accounting (tokens).
    window: int = 200_000
    output_reserve: int | None = None  # None: 10% of the window, at most 32K
    system_tokens: int = 0  # system prompt + tool definitions, counted in every request
    chars_per_token: float = CHARS_PER_TOKEN

    # L0: one huge result is cut at append time (chars).
    truncate_chars: int = TRUNCATE_CHARS  # caps.py: the last of the three caps on a result
    # ...and any other block (text, tool input field) over this share of the window, so
    # that every message fits whatever the window (a summary and the rest need room too).
    oversized_fraction: float = 0.25

    # L1: old results budgeted as utilization rises (fraction -> chars).
    budget_soft_at: float = 0.50
    budget_soft_chars: int = 30_000
    budget_hard_at: float = 0.70
    budget_hard_chars: int = 15_000

    # L2: stale duplicates of (tool, path-or-command).
    snip_at: float = 0.30
    snip_keep_recent: int = 3
    snippable_tools: frozenset[str] = field(
        default_factory=lambda: frozenset({"read_file", "grep_search", "list_files", "run_shell"})
    )

    # Clearing old results and old tool inputs (cf. clear_tool_uses / clear_tool_inputs).
    clear_at: float = 0.05
    clear_keep_recent: int = 4
    # ...and those that arrived or that the model named (naming.py) in its last few replies, at any age.
    clear_keep_named_turns: int = 2
    # Server-side clearing (server_editing.py) keeps only the newest tool uses: it cannot see what was named.
    server_keep_recent: int = 10
    clear_recent_fraction: float = 0.40  # the recent results kept verbatim fit in this share
    clear_inputs_min_chars: int = 200
    # What the model wrote itself (text, thinking, tool inputs) stays verbatim only in the newest
    # few turns: it has done its job, and the API drops the thinking of earlier turns anyway.
    written_keep_recent: int = 3
    # ...but its thinking only in the newest (a model that does not bind thinking: the docs let earlier turns'
    # thinking be left out; its visible words, which say the plan, stay for written_keep_recent).
    thinking_keep_recent: int = 1
    protected_tools: frozenset[str] = field(
        default_factory=lambda: frozenset({"edit_file", "write_file", "todo_write"})
    )  # their short confirmations (up to protected_max_chars) are never snipped or cleared...
    protected_max_chars: int = 1_000  # ...a longer result of theirs (a diff, an echoed file) is like any other
    # Tools whose input is state the model keeps working from (the task list): never cleared.
    kept_input_tools: frozenset[str] = field(default_factory=lambda: frozenset({"todo_write"}))

    # Cache-aware batching (policy.py): a batch is carried out once the rent already
    # paid for the blocks it frees reaches batch_payoff x its price (ski rental)...
    batch_payoff: float = 1.0
    # ...and frees at least this much (cf. clear_at_least; the price rule needs no floor).
    min_batch_tokens: int = 0
    # ...and, were the session to end right after it, leaves it at most this share dearer than sending
    # everything would have been (risk.py; None: no limit).
    rewrite_risk: float | None = 0.07
    # Over the window, a batch instead of the summary only when it makes room for this many requests at the
    # session's mean growth per request (policy.py); less room only postpones the summary.
    pressure_min_requests: float = 3.0
    # Over the window a deeper batch is weighed beside it (policy.pressure_batch): only this many newest results
    # stay verbatim, with what the last replies named within this share of the window, and the model's own
    # writing of the newest turn; the one that costs less per request until the threshold is back goes (None:
    # only the usual batch).
    pressure_keep_recent: int | None = 1
    pressure_recent_fraction: float = 0.20
    # How the next request's write after a batch is priced: "anthropic" (read
    # only up to the newest breakpoint before the change) or "ideal".
    cache_model: str = "anthropic"

    # Microcompact: after this idle gap the prompt cache is cold; rewrite freely.
    idle_gap_seconds: float = 300.0
    idle_keep_recent: int = 5

    # L3: summary at the limit. The engine prepares every request, so the window forces a summary only when
    # the request would not fit the usable window; a summary sooner is the price rule's (compaction_timing.py)
    # when it pays. A fixed margin (0.85) summarised sessions about to end and cost recall for nothing.
    compact_at: float = 1.0
    auto_compact: bool = True  # False (settings `autoCompact: null`): only a manual /compact summarises
    compact_tail_fraction: float = 0.10  # recent tail kept verbatim
    summary_max_tokens: int = 4_000
    user_text_budget_tokens: int = 3_000
    reattach_files: int = 5
    reattach_file_tokens: int = 5_000
    reattach_total_fraction: float = 0.10
    breaker_failures: int = 3

    # The model at hand (set by the agent from model/binding.py, the Models API and pricing.py).
    # thinking_bound: its thinking blocks are bound to their prefix, so nothing before a carried
    # thinking block may change (the binding-safe forms only); server_editing / server_compaction:
    # it advertises context editing (clear_tool_uses_20250919) / on-demand compaction.
    thinking_bound: bool = False
    server_editing: bool = False
    server_compaction: bool = False
    # Its prompt-cache prices relative to an uncached input token, and the shortest cacheable prompt.
    read_price: float = 0.10
    write_price: float = 1.25
    min_cacheable_tokens: int = 1024
    output_price: float = 5.0  # an output token (a summary's) relative to an uncached input token
    # A summary may come before compact_at when its price is paid back (compaction_timing.py).
    priced_compaction: bool = True
    # A compaction folds the settled turns at the start of its verbatim tail into an index (fold.py).
    fold_settled: bool = True
    # A harness state block a newer one restates (<environment_details>…) goes to the store (superseded.py).
    supersede_states: bool = True
    # A result a harness sent as user text (classic Cline, SWE-agent) is cleared like a result (text_results.py).
    clear_text_results: bool = True
    # The harness may write a call as text and answer it with a user message (another harness's session, as
    # the replay has them): such messages are text results. agentls's own agent calls its tools with tool_use
    # blocks, so its user messages are always the user's words, also after a reply that ends in a code block
    # (agent/settings.context_config: False).
    text_calls: bool = True

    # Status levels for the editor.
    warn_at: float = 0.60
    high_at: float = 0.85

    @property
    def reserve(self) -> int:
        if self.output_reserve is not None:
            return self.output_reserve
        return min(self.window // 10, 32_000)

    @property
    def effective_window(self) -> int:
        return max(1, self.window - self.reserve)

    @property
    def summary_fixed_share(self) -> float:
        """Share of the usable window the summary message takes whatever the session: summary + user texts."""
        return (self.summary_max_tokens + self.user_text_budget_tokens) / self.effective_window

    @property
    def reattach_total_tokens(self) -> float:
        """Re-attached files pay for the summary's fixed part first: 5.8% of a 200K window, none at 64K or less.

        At a small window the files (copies of what read_file fetches again) would crowd
        out the verbatim tail, which holds the exact recent results the work goes on from.
        """
        return max(0.0, self.reattach_total_fraction - self.summary_fixed_share) * self.effective_window

    @property
    def compact_tail_tokens(self) -> float:
        """The verbatim tail gets the room the files give up: the two share 20% of the window."""
        share = self.compact_tail_fraction + self.reattach_total_fraction
        return share * self.effective_window - self.reattach_total_tokens

    @property
    def oversized_chars(self) -> int:
        share = int(self.oversized_fraction * self.effective_window * self.chars_per_token)
        return min(self.truncate_chars, share)

    @property
    def min_batch(self) -> int:
        return self.min_batch_tokens

    def tokens(self, chars: int) -> int:
        return estimate_tokens(chars, self.chars_per_token)

    def updated(self, **changes: Any) -> ContextConfig:
        """A copy with the known fields changed; unknown names are an error."""
        names = {f.name for f in fields(self)}
        unknown = set(changes) - names
        if unknown:
            raise ValueError(f"unknown context settings: {', '.join(sorted(unknown))}")
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data.update(changes)
        return ContextConfig(**data)
