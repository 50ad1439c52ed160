"""Anthropic's server-side context management, emulated for the replay (``--policy anthropic``).

The yardstick is what a client gets for free by sending the whole history
with ``context_management`` turned on:

- ``clear_tool_uses_20250919`` with its documented defaults: once the prompt
  reaches the trigger (100K input tokens), the results of all but the 3 most
  recent tool uses are replaced by a short placeholder; ``clear_at_least``
  unset, tool inputs kept, no tool excluded. The client keeps its full
  history, so the edit is made again on every request: each request that
  is over the trigger clears one more tool use than the last, and the cache
  is lost from there on (which is why ``clear_at_least`` exists).
- ``compact_20260112``-style compaction: once the prompt (after clearing)
  reaches the trigger (150K by default), the model summarises the
  conversation within the same request; the client drops what came before
  the compaction block. What stays: the summary, the last assistant message
  and the newest user message (so every tool_use keeps its result).

Assumptions (the README states them too): triggers scale with the window
(clearing at half the window, as 100K is half of 200K; compaction at
150K capped at 85% of the usable window (the default policy's own L3 threshold until it moved to the limit),
even where that is below the API's 50K minimum); clearing is applied before
compaction and the compaction trigger is checked on the cleared prompt; the
summary is the replay's 2,000-token stand-in, its call priced like the
default policy's (the prompt as a request plus 2,000 output tokens).
"""

from __future__ import annotations

import math

from ..context.blocks import Message, blocks_of
from .billing import message_tokens
from .thinking_ledger import strip_thinking

CLEAR_TRIGGER, KEEP_TOOL_USES = 100_000, 3
COMPACT_TRIGGER = 150_000
REFERENCE_WINDOW = 200_000
CLEARED = "[tool result cleared by context management]"


class AnthropicEditing:
    """``clearing=False``: compaction only (the append-only baseline of ``replay --model``);
    ``kept_thinking=False``: the reply kept at a compaction loses its thinking blocks, which were bound to
    the history the summary replaces (removing thinking from the front is binding-safe)."""

    def __init__(self, window: int, system_tokens: int, compact_at: float = 0.85, clearing: bool = True,
                 kept_thinking: bool = True) -> None:
        usable = window - min(window // 10, 32_000)
        self.clear_trigger: float = int(CLEAR_TRIGGER * min(1.0, window / REFERENCE_WINDOW)) if clearing else math.inf
        self.kept_thinking = kept_thinking
        self.compact_trigger = min(COMPACT_TRIGGER, int(compact_at * usable))
        self.system_tokens = system_tokens
        self.messages: list[Message] = []  # what the client holds: everything since the last compaction
        self.tokens = 0.0
        self._cleared: dict[int, Message] = {}  # message index -> its form with every result cleared

    def append(self, message: Message) -> None:
        self.messages.append(message)
        self.tokens += message_tokens(message)

    def _size(self, messages: list[Message]) -> float:
        return self.system_tokens + sum(message_tokens(m) for m in messages)

    def _edited(self) -> list[Message]:
        """The prompt as the server sees it after clearing tool uses."""
        if self.system_tokens + self.tokens < self.clear_trigger:
            return list(self.messages)
        result_ids = [b["tool_use_id"] for m in self.messages if m["role"] == "user"
                      for b in blocks_of(m) if b.get("type") == "tool_result"]
        kept = set(result_ids[-KEEP_TOOL_USES:])
        edited = []
        for index, message in enumerate(self.messages):
            ids = {b.get("tool_use_id") for b in blocks_of(message) if b.get("type") == "tool_result"}
            if message["role"] != "user" or not ids - kept:
                edited.append(message)
            elif not ids & kept:
                if index not in self._cleared:
                    self._cleared[index] = _cleared(message, kept)
                edited.append(self._cleared[index])
            else:
                edited.append(_cleared(message, kept))
        return edited

    def prepare(self, summarize) -> tuple[list[Message], list[list[Message]]]:
        prompt = self._edited()
        summaries: list[list[Message]] = []
        if self._size(prompt) >= self.compact_trigger and len(self.messages) >= 3:
            summaries.append(prompt)
            summary = {"role": "user", "content": [{"type": "text", "text": summarize(prompt)}]}
            kept = self.messages[-2:] if self.kept_thinking else [strip_thinking(m) for m in self.messages[-2:]]
            self.messages = [summary, *kept]
            self.tokens = sum(message_tokens(m) for m in self.messages)
            self._cleared = {}
            prompt = self._edited()
        return prompt, summaries

    def after_call(self, prompt_tokens: int) -> None:
        pass  # the server decides from the prompt itself


def _cleared(message: Message, kept: set[str]) -> Message:
    blocks = [{**b, "content": CLEARED} if b.get("type") == "tool_result" and b.get("tool_use_id") not in kept
              else b for b in blocks_of(message)]
    return {**message, "content": blocks}
