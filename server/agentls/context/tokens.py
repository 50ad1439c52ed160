"""Token accounting: the one chars/4 estimate, and the last real prompt size plus the estimate of what came since.

`estimate_tokens` is the only estimate of tokens from characters, for every
caller (the context engine, the agent's prompt head and instructions, the mock
API's usage and cache, the demo): characters / 4, rounded up, so that a non-empty
text is never 0 tokens. Rounded up rather than down because the history
(`History.token_of`), the engine's thresholds (`ContextConfig.tokens`) and the mock
API (which the tests compare against the agent's own accounting) already rounded
up; the agent's prompt head rounded down, and no test asserts one of its figures.
The replay's price model (evaluation/) divides by CHARS_PER_TOKEN without
rounding: a cost is fractional, and its ledger is repriced independently from
the recorded characters to 1e-9 (tests/unit/test_context_replay.py).

The real size of a prompt is input + cache write + cache read tokens: with
caching on, ``input_tokens`` alone is only the uncached tail and badly
under-counts. Between calls we add the estimated change of the history to
that anchor, so utilization is known before the next call.
"""

from __future__ import annotations

from dataclasses import dataclass

from .usage import Usage

__all__ = ["CHARS_PER_TOKEN", "TokenMeter", "Usage", "estimate_tokens"]

CHARS_PER_TOKEN = 4


def estimate_tokens(chars: int, chars_per_token: float = CHARS_PER_TOKEN) -> int:
    """Tokens of `chars` characters: chars / chars_per_token, rounded up."""
    return int(-(-chars // chars_per_token))


@dataclass
class TokenMeter:
    anchor_tokens: int | None = None  # real prompt size of the last call
    anchor_estimate: int = 0  # our estimate of that same prompt

    def record(self, usage: Usage, estimate_at_call: int) -> None:
        if usage.prompt_tokens > 0:
            self.anchor_tokens = usage.prompt_tokens
            self.anchor_estimate = estimate_at_call

    def estimate(self, current_estimate: int) -> int:
        if self.anchor_tokens is None:
            return current_estimate
        return max(0, self.anchor_tokens + current_estimate - self.anchor_estimate)

    def rebase(self, old_raw: int, new_raw: int) -> None:
        """The history was replaced: carry the last measured real/estimated ratio over.

        A smaller estimate stays smaller in real tokens too, so a compaction
        that shrinks the estimate is never reported as growth.
        """
        if self.anchor_tokens is None or old_raw <= 0:
            return
        before = self.estimate(old_raw)
        after = before * new_raw // old_raw
        if new_raw < old_raw:
            after = min(after, before - 1)
        self.anchor_tokens = max(0, after)
        self.anchor_estimate = new_raw

    def reset(self) -> None:
        self.anchor_tokens = None
        self.anchor_estimate = 0
