"""The stable frontier: the newest message before which nothing will be rewritten.

Every block before it is in its final form: already rewritten (a block is
rewritten at most once) or too small for any layer to gain by rewriting it;
that goes for tool results and inputs, for long assistant text and for the
results a harness sent as user text (text_results.py) alike.
A cache breakpoint there keeps the prefix readable after a batch of
rewrites, which can only start after it; it moves forward only when a batch
rewrites the oldest candidates. Computed from the History without touching
the policy's decisions; a cursor keeps it O(1) per call on average.
"""

from __future__ import annotations

from .compaction_timing import kept_after
from .config import ContextConfig
from .history import History
from .placeholders import PLACEHOLDER_TOKENS


class StableFrontier:
    def __init__(self) -> None:
        self._history: History | None = None
        self._cursor = 0  # results before it are final

    def rewind(self, seq: int) -> None:
        """Results from sequence number `seq` on were renumbered (a fold took some out): look again."""
        self._cursor = min(self._cursor, seq)

    def of(self, history: History, config: ContextConfig) -> int | None:
        """Index of the frontier message, or None when even the first message may be rewritten."""
        if config.thinking_bound:
            # No batch ever rewrites a bound history: the breakpoint goes where the next compaction would cut,
            # so its summary call (the prefix before the cut) reads the cache (compaction_timing.py)
            cut, _ = kept_after(history, config, 0)
            return cut - 1 if cut else None
        if history is not self._history:
            self._history, self._cursor = history, 0  # compaction built a new history
        results = history.results
        while self._cursor < len(results) and self._final(history, config, results[self._cursor]):
            self._cursor += 1
        first = len(history.messages) - 1  # the newest message is never behind the frontier
        if self._cursor < len(results):
            record = history.records[results[self._cursor]]
            # a fold (fold_turns.py) changes the turn from its call on; so does clearing a large input
            from_call = config.fold_settled or record.id in history.live_inputs
            first = min(first, record.use_msg if from_call else record.result_msg or first)
        prose = next(iter(history.live_texts), None)  # the oldest assistant text the prose layer may clear
        if prose is not None:
            first = min(first, prose)
        texts = history.text_results  # the oldest result sent as user text that clearing may still take
        if config.clear_text_results and texts.active and texts.live:
            first = min(first, next(iter(texts.live)))
        return first - 1 if first > 0 else None

    @staticmethod
    def _final(history: History, config: ContextConfig, tool_use_id: str) -> bool:
        """Neither the tool's input nor its result will be rewritten any more."""
        if tool_use_id in history.live_inputs:
            return False
        if tool_use_id not in history.live:
            return True
        return config.tokens(history.records[tool_use_id].chars) <= PLACEHOLDER_TOKENS
