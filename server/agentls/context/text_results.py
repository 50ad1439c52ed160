"""Results a harness sends back as user text: found, indexed, and cleared like tool results.

Harnesses that predate tool_use blocks, or keep their own protocol, parse the call out of the reply and
answer with a user message of text: classic Cline and Roo (a reply ending in ``<read_file>…</read_file>``,
then ``[read_file for '…'] Result:`` and the file), SWE-agent and mini-swe-agent (a reply ending in a fenced
command, then the observation). To the engine those were the user's own words: never cleared, quoted by
every compaction, so on such a session every result stayed until a summary took the whole conversation.

A user message is a **text result** when the session has made no tool call (a harness with tool_use blocks
sends its results in them) and the reply before it ends in a call: a closing code fence or a closing XML
tag. Its text blocks of ``MIN_CHARS`` or more (not the harness's state blocks, superseded.py's) are
candidates of the price rule like results: the full text goes to the store and a one-line placeholder names
its ref (lossless), the newest ``keep_recent`` such messages stay. A compaction does not quote them as the
user's words (compact.py).

Only where the harness may write calls as text (``ContextConfig.text_calls``: the replay of other harnesses'
sessions). agentls's own agent calls its tools with tool_use blocks; there a reply ending in a code block is
advice, and the user's answer to it is the user's (the index stays empty, ``active`` is False).

Kept in step by History (append, a rewritten message, messages leaving); a restart or a compaction rebuilds
it from the messages. Work per appended message: its own blocks.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass, field

from .blocks import Block, Message, blocks_of
from .naming import RARE_HOLDERS, names_in
from .state_blocks import state_tag

MIN_CHARS = 400  # a shorter text result is not worth a placeholder
TAIL_CHARS = 400  # where a reply's call must end: the work per reply stays flat, whatever its length
_CALL_END = re.compile(r"(```|</[A-Za-z_][\w:.-]*>)\s*\Z")


def ends_in_call(message: Message) -> bool:
    """An assistant message without tool_use blocks whose text ends in a code fence or a closing XML tag."""
    if message.get("role") != "assistant":
        return False
    blocks = blocks_of(message)
    if any(b.get("type") == "tool_use" for b in blocks):
        return False
    texts = [str(b.get("text", "")) for b in blocks if b.get("type") == "text"]
    return bool(texts) and _CALL_END.search(texts[-1][-TAIL_CHARS:]) is not None


def clearable_text(block: Block) -> bool:
    """A text block of a text result worth clearing: long enough, and not a harness state block."""
    return (block.get("type") == "text" and len(str(block.get("text", ""))) >= MIN_CHARS
            and state_tag(block) is None)


@dataclass
class TextResults:
    """The user messages that answer a call written as text, their blocks not yet cleared, and the words
    each of those shows (which ones a reply names: naming.py's rule, kept here since these have no id)."""

    order: list[int] = field(default_factory=list)  # every text-result message, in order
    live: dict[int, tuple[int, ...]] = field(default_factory=dict)  # message -> its blocks still verbatim
    # the session has made a tool call (before a compaction or a restart too): its user text is the user's
    tool_calls: bool = False
    enabled: bool = True  # the harness may write calls as text at all (ContextConfig.text_calls)
    words: dict[tuple[int, int], frozenset[str]] = field(default_factory=dict)  # (message, block) -> its names
    holders: dict[str, int] = field(default_factory=dict)  # word -> verbatim blocks showing it

    @property
    def active(self) -> bool:
        """Whether the session is one of text results (calls as text possible, no tool call ever)."""
        return self.enabled and not self.tool_calls

    def add(self, index: int, message: Message, previous: Message | None) -> None:
        """A message joins at `index`; `previous` is the turn before it (None at the start)."""
        if not self.enabled:
            return
        blocks_list = blocks_of(message)
        if any(b.get("type") == "tool_use" for b in blocks_list):
            self.tool_calls = True
        if message.get("role") != "user" or previous is None or not ends_in_call(previous):
            return
        self.order.append(index)
        blocks = tuple(i for i, block in enumerate(blocks_list) if clearable_text(block))
        if blocks:
            self.live[index] = blocks
        for position in blocks:
            self._hold((index, position), frozenset(names_in(str(blocks_list[position].get("text", "")))))

    def _hold(self, key: tuple[int, int], words: frozenset[str]) -> None:
        self.words[key] = words
        for word in words:
            self.holders[word] = self.holders.get(word, 0) + 1

    def _release(self, key: tuple[int, int]) -> None:
        for word in self.words.pop(key, ()):
            self.holders[word] -= 1
            if not self.holders[word]:
                del self.holders[word]

    def replaced(self, index: int, message: Message) -> None:
        """Message `index` was rewritten: a block that is no longer a long text is no candidate any more."""
        held = self.live.get(index)
        if held is None:
            return
        blocks = blocks_of(message)
        kept = tuple(i for i in held if i < len(blocks) and clearable_text(blocks[i]))
        for position in set(held) - set(kept):
            self._release((index, position))
        if kept:
            self.live[index] = kept
        else:
            del self.live[index]

    def renumbered(self, moved: dict[int, int], gone: set[int]) -> None:
        """Messages left (`gone`) and the ones after moved down (old index -> new)."""
        for key in [k for k in self.words if k[0] in gone]:
            self._release(key)
        self.order = [moved.get(m, m) for m in self.order if m not in gone]
        self.live = {moved.get(m, m): blocks for m, blocks in self.live.items() if m not in gone}
        self.words = {(moved.get(m, m), b): words for (m, b), words in self.words.items()}

    def is_result(self, index: int) -> bool:
        found = bisect_left(self.order, index)
        return found < len(self.order) and self.order[found] == index

    def named(self, key: tuple[int, int], written: set[str]) -> bool:
        """Whether `written` (a reply's words) names this block: a word at most RARE_HOLDERS blocks show."""
        return any(self.holders.get(word, 0) <= RARE_HOLDERS for word in self.words.get(key, frozenset()) & written)

    def candidates(self, keep_recent: int) -> Iterator[tuple[int, int]]:
        """(message, block) of each verbatim text result outside the `keep_recent` newest, oldest first."""
        if keep_recent > len(self.order):
            return
        before = self.order[-keep_recent] if keep_recent > 0 else None
        for message, blocks in self.live.items():
            if before is not None and message >= before:
                return
            for block in blocks:
                yield message, block
