"""Token accounting: the last real prompt size plus an estimate of what came since.

The real size of a prompt is input + cache write + cache read tokens: with
caching on, ``input_tokens`` alone is only the uncached tail and badly
under-counts. Between calls we add the estimated change of the history
(chars / 4) to that anchor, so utilization is known before the next call.
"""

from __future__ import annotations

from dataclasses import dataclass

from .usage import Usage

__all__ = ["TokenMeter", "Usage"]


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
