"""Harness state blocks in user messages, and which ones a newer block restates (superseded.py's index).

A text block counts only when all of its text is one tagged element (``<tag …>…</tag>``, at least
``MIN_CHARS``): prose that merely contains a tag is not a state block. Two blocks of the same tag that say
different things (two ``<system-reminder>`` about different files) do not supersede each other: at least
``OVERLAP`` of the older block's lines must be in the newer one.

Kept in step by History (append, a rewritten message, messages leaving); a restart or a compaction rebuilds
it from the messages. Work per appended message: its own blocks, each compared with at most ``COMPARED``
earlier blocks of its tag.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from .blocks import Block, Message, blocks_of

MIN_CHARS = 200  # a shorter state block is not worth a placeholder
OVERLAP = 0.5  # share of the older block's lines the newer one must repeat
COMPARED = 8  # the newest blocks of a tag a new one is compared with
_TAGGED = re.compile(r"<([A-Za-z][\w-]*)(?:\s[^>]*)?>.*</\1>", re.DOTALL)


def state_tag(block: Block) -> str | None:
    """The tag of a text block that is one tagged element of MIN_CHARS or more, else None."""
    if block.get("type") != "text":
        return None
    text = str(block.get("text", "")).strip()
    if len(text) < MIN_CHARS:
        return None
    found = _TAGGED.fullmatch(text)
    return found.group(1) if found else None


def _lines(text: str) -> frozenset[str]:
    return frozenset(line.strip() for line in text.splitlines() if line.strip())


@dataclass
class StateBlocks:
    """The tagged state blocks of user messages: the newest of each tag, and the older ones a newer restates."""

    recent: dict[str, list[tuple[int, int, frozenset[str]]]] = field(default_factory=dict)  # tag -> newest blocks
    superseded: dict[tuple[int, int], str] = field(default_factory=dict)  # (message, block) -> tag, not yet rewritten
    known: dict[int, dict[int, str]] = field(default_factory=dict)  # message -> {block: tag} of those above
    seen: dict[str, int] = field(default_factory=dict)  # tag -> blocks of it appended (a harness repeats its own)

    def add(self, index: int, message: Message, skip: frozenset[int] = frozenset()) -> None:
        """A user message joins at position `index` (blocks at `skip` are known already)."""
        if message.get("role") != "user":
            return
        for position, block in enumerate(blocks_of(message)):
            tag = None if position in skip else state_tag(block)
            if tag is None:
                continue
            lines = _lines(str(block.get("text", "")))
            kept = []
            for older in self.recent.get(tag, []):
                if older[2] and len(older[2] & lines) >= OVERLAP * len(older[2]):
                    self.superseded[(older[0], older[1])] = tag
                else:
                    kept.append(older)
            self.recent[tag] = [*kept, (index, position, lines)][-COMPARED:]
            self.known.setdefault(index, {})[position] = tag
            self.seen[tag] = self.seen.get(tag, 0) + 1

    def repeated(self, tag: str) -> bool:
        """Whether more than one block of `tag` came: a harness's state, not a user's one tagged message
        (Cline's ``<task>``)."""
        return self.seen.get(tag, 0) > 1

    def replaced(self, index: int, message: Message) -> None:
        """Message `index` was rewritten: a state block it no longer holds is forgotten, a new one added."""
        blocks = blocks_of(message)
        held = self.known.get(index, {})
        for position, tag in list(held.items()):
            if position < len(blocks) and state_tag(blocks[position]) == tag:
                continue
            del held[position]
            self.superseded.pop((index, position), None)
            self.recent[tag] = [b for b in self.recent[tag] if (b[0], b[1]) != (index, position)]
        if not held:
            self.known.pop(index, None)
        self.add(index, message, skip=frozenset(held))

    def renumbered(self, moved: dict[int, int], gone: set[int]) -> None:
        """Messages left (`gone`) and the ones after moved down (old index -> new)."""
        self.superseded = {(moved.get(m, m), b): tag for (m, b), tag in self.superseded.items() if m not in gone}
        self.recent = {tag: [(moved.get(m, m), b, lines) for m, b, lines in blocks if m not in gone]
                       for tag, blocks in self.recent.items()}
        self.known = {moved.get(m, m): held for m, held in self.known.items() if m not in gone}

    def candidates(self, before: int) -> Iterator[tuple[int, int, str]]:
        """(message, block, tag) of each superseded block in a message before `before`, oldest first."""
        for (message, block), tag in sorted(self.superseded.items()):
            if message < before:
                yield message, block, tag
