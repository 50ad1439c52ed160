"""The policies ``agentls replay --model`` compares, behind one interface: what the client sends, what the API bills.

- ``agentls``: the context engine configured for the model (bound thinking, server editing and compaction,
  the model's cache prices, the ContextConfig fields of issue 29); when its request asks for server-side
  editing (``Prepared.context_management``), the API's edits are applied for the price (server_editing.py).
- ``append-only``: the whole history, one summary at the compaction threshold; binding-safe: the summary,
  the last reply with its thinking stripped, the newest user turn (anthropic_editing.py without clearing).
- ``anthropic``: Anthropic's server-side clearing with its defaults (anthropic_editing.py). The client sends
  its whole history and the edits happen after the prefix check, so its thinking stays valid; at a
  compaction the kept reply loses its thinking as above.
- ``seed``: the seed chapter's policy (seed_policy.py) as is: its rewrites of old results invalidate every
  later thinking block, which the ledger counts.
- ``seed-stripped``: the same, the thinking blocks a rewrite invalidated stripped before the request goes out
  (what the seed policy can do where binding allows it: valid requests, reasoning lost).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..context.blocks import Message
from ..context.config import ContextConfig
from ..context.prompt_cache import FIVE_MINUTES
from ..model.binding import thinking_binds
from .anthropic_editing import AnthropicEditing
from .model_prices import ModelPrices
from .replay import SYSTEM_TOKENS, Frontiers, PolicyRunner, standin_summary
from .seed_policy import SeedPolicy
from .server_editing import apply_edits
from .thinking_ledger import ThinkingLedger, without_failed

POLICIES = ("agentls", "append-only", "anthropic", "seed", "seed-stripped")
BASE = "append-only"  # what costs are shown relative to


@dataclass
class Turn:
    """One call: the request as sent (checked for binding) and as billed, and the summary calls made first."""

    sent: list[Message]
    priced: list[Message]
    summaries: list[tuple[list[Message], list[Message]]] = field(default_factory=list)  # (sent, priced)
    # the stable frontiers (for a summary; of the request and the previous one): agentls only
    frontiers: Frontiers = (None, None, None)


def agentls_config(model: str, prices: ModelPrices, server_editing: bool = True,
                   server_compaction: bool = True) -> ContextConfig:
    """The engine's settings for `model`, as the agent sets them from model/binding.py, its capabilities
    and pricing (the replay has no Models API: the capabilities are given)."""
    return ContextConfig(cache_model="anthropic", thinking_bound=thinking_binds(model, True),
                         server_editing=server_editing, server_compaction=server_compaction,
                         read_price=prices.read_multiplier, write_price=prices.write_multiplier,
                         output_price=prices.output_multiplier, min_cacheable_tokens=prices.minimum_tokens)


class EngineBaseline:
    def __init__(self, window: int, config: ContextConfig) -> None:
        self.runner = PolicyRunner("default", window, config)

    def append(self, message: Message) -> None:
        self.runner.append(message)

    def prepare(self, now: float) -> Turn:
        sent, summaries, frontiers = self.runner.prepare(now)
        # Prepared.context_management and ContextEngine.record_applied_edits come with the engine's server
        # editing (issue 29, engine branch): read through getattr so the replay runs before that merge too
        wanted = getattr(self.runner.prepared, "context_management", None)
        priced = sent
        if wanted:
            priced, applied = apply_edits(sent, wanted, SYSTEM_TOKENS)
            record = getattr(self.runner.engine, "record_applied_edits", None)
            if record is not None:
                record(applied)
        return Turn(sent, priced, [(s, s) for s in summaries], frontiers)

    def after_call(self, tokens: int, now: float, cache_ttl: str = FIVE_MINUTES, output_tokens: float = 0.0) -> None:
        self.runner.after_call(tokens, now, cache_ttl, output_tokens)


class HeldBaseline:
    """append-only, anthropic, seed and seed-stripped: a history the client holds and rewrites itself."""

    def __init__(self, policy: str, window: int, ledger: ThinkingLedger) -> None:
        self.held: AnthropicEditing | SeedPolicy
        if policy in ("append-only", "anthropic"):
            self.held = AnthropicEditing(window, SYSTEM_TOKENS, clearing=policy == "anthropic", kept_thinking=False)
        else:
            self.held = SeedPolicy(window, SYSTEM_TOKENS)
        self.server_side = policy == "anthropic"  # the client's messages are sent as they are
        self.strips = policy == "seed-stripped"
        self.ledger = ledger
        self.stripped = 0  # thinking blocks stripped because a rewrite had invalidated them

    def append(self, message: Message) -> None:
        self.held.append(message)

    def _strip_invalidated(self, messages: list[Message]) -> list[Message]:
        failures = self.ledger.failures(messages)  # the request is the whole history (seed_policy.py)
        self.stripped += len(failures)
        return without_failed(messages, failures) if failures else messages

    def prepare(self, now: float) -> Turn:
        before = list(self.held.messages)
        if isinstance(self.held, SeedPolicy) and self.strips:
            prompt, summaries = self.held.prepare(standin_summary, after_rewrite=self._strip_invalidated)
        else:
            prompt, summaries = self.held.prepare(standin_summary)
        if self.server_side:  # the summary was asked of the history as held; the server edits what it reads
            return Turn(list(self.held.messages), prompt, [(before, s) for s in summaries])
        return Turn(prompt, prompt, [(s, s) for s in summaries])

    def after_call(self, tokens: int, now: float, cache_ttl: str = FIVE_MINUTES, output_tokens: float = 0.0) -> None:
        self.held.after_call(tokens)


def baseline(policy: str, window: int, config: ContextConfig, ledger: ThinkingLedger) -> EngineBaseline | HeldBaseline:
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; choose among {', '.join(POLICIES)}")
    return EngineBaseline(window, config) if policy == "agentls" else HeldBaseline(policy, window, ledger)
