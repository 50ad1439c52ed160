"""The stable frontier: the newest message before which nothing will be rewritten.

Every block before it is in its final form: already rewritten (a block is
rewritten at most once) or too small for any layer to gain by rewriting it.
A cache breakpoint there keeps the prefix readable after a batch of
rewrites, which can only start after it; it moves forward only when a batch
rewrites the oldest candidates. Computed from the History without touching
the policy's decisions; a cursor keeps it O(1) per call on average.
"""

from __future__ import annotations

from .config import ContextConfig
from .history import History
from .placeholders import PLACEHOLDER_TOKENS


class StableFrontier:
    def __init__(self) -> None:
        self._history: History | None = None
        self._cursor = 0  # results before it are final

    def of(self, history: History, config: ContextConfig) -> int | None:
        """Index of the frontier message, or None when even the first message may be rewritten."""
        if history is not self._history:
            self._history, self._cursor = history, 0  # compaction built a new history
        results = history.results
        while self._cursor < len(results):
            tool_use_id = results[self._cursor]
            if tool_use_id in history.live and config.tokens(history.records[tool_use_id].chars) > PLACEHOLDER_TOKENS:
                break
            self._cursor += 1
        first = len(history.messages) - 1  # the newest message is never behind the frontier
        if self._cursor < len(results):
            first = min(first, history.records[results[self._cursor]].result_msg or first)
        large_input = next(iter(history.live_inputs), None)
        if large_input is not None:
            first = min(first, history.records[large_input].use_msg)
        return first - 1 if first > 0 else None
