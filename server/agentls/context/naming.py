"""Which verbatim results the model has named lately: what clearing keeps besides the newest ones.

Arrival order is a poor guess of what a later reply will use: in the shared sessions 37% of the results a
reply draws on are more than ten results back (a file read early and edited late, a test log read again
after a fix). What the model itself writes is a better one: a result whose specific names (a path, a symbol,
an identifier of 8+ characters) the model wrote in its last few turns is one it is working from. So a reply
*names* a verbatim result when it writes a word that at most ``RARE_HOLDERS`` verbatim results show (a word
many results show names nothing in particular), and clearing keeps a result while it arrived or was named
within the last ``ContextConfig.clear_keep_named_turns`` replies (clearing.py).

Measured on the shared sessions (the result alone, kept or not, at equal carried tokens): keeping the
recently named ones instead of more of the newest keeps 8-9 points more of the later references.

Only verbatim results (``History.live``) hold words: a result leaves the index when it is rewritten, so the
index is rebuilt exactly from the messages as sent (engine_state.py) and its size follows the verbatim
results, not the session. The turns named are state (``named_turn``, ``turn``): saved with the engine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .blocks import Message, blocks_of

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]{7,}")
RARE_HOLDERS = 2  # a word shown by more verbatim results than this names none of them


def names_in(text: str) -> set[str]:
    return set(NAME.findall(text))


def written_text(message: Message, thinking: bool = True) -> str:
    """What the model wrote in a reply: its text, its thinking (unless `thinking` is False), its tool inputs."""
    parts: list[str] = []
    for block in blocks_of(message):
        kind = block.get("type")
        if kind == "text":
            parts.append(str(block.get("text", "")))
        elif kind == "thinking" and thinking:
            parts.append(str(block.get("thinking", "")))
        elif kind == "tool_use":
            parts.append(str(block.get("input", "")))
    return "\n".join(parts)


@dataclass
class NameIndex:
    holders: dict[str, list[str]] = field(default_factory=dict)  # word -> verbatim results showing it
    words: dict[str, frozenset[str]] = field(default_factory=dict)  # verbatim result -> its words
    named_turn: dict[str, int] = field(default_factory=dict)  # verbatim result -> the reply that last named it
    turn: int = 0  # replies so far (never renumbered: folds and compactions keep counting)

    def add_result(self, tool_use_id: str, text: str) -> None:
        """A verbatim result arrived (after the reply that called it): it counts as named by that reply."""
        words = frozenset(names_in(text))
        self.words[tool_use_id] = words
        for word in words:
            self.holders.setdefault(word, []).append(tool_use_id)
        self.named_turn[tool_use_id] = self.turn

    def add_reply(self, message: Message) -> None:
        """A reply: every verbatim result it names was named now."""
        self.turn += 1
        for word in names_in(written_text(message)):
            shown_by = self.holders.get(word)
            if shown_by and len(shown_by) <= RARE_HOLDERS:
                for tool_use_id in shown_by:
                    self.named_turn[tool_use_id] = self.turn

    def forget(self, tool_use_id: str) -> None:
        """A result is no longer verbatim (rewritten, folded, cut): its words name nothing any more."""
        for word in self.words.pop(tool_use_id, ()):
            shown_by = self.holders[word]
            shown_by.remove(tool_use_id)
            if not shown_by:
                del self.holders[word]
        self.named_turn.pop(tool_use_id, None)

    def named_within(self, tool_use_id: str, turns: int) -> bool:
        """Arrived or named in the last `turns` replies."""
        named = self.named_turn.get(tool_use_id)
        return named is not None and self.turn - named < turns

    # -- state (engine_state.py) ------------------------------------------------

    def state(self) -> dict[str, object]:
        return {"turn": self.turn, "named_turn": dict(self.named_turn)}

    def restore(self, state: object) -> None:
        """The turns saved with the engine (absent in an older save: each result counts as named on arrival)."""
        if not isinstance(state, dict):
            return
        turn, named = state.get("turn"), state.get("named_turn")
        if isinstance(turn, int) and isinstance(named, dict):
            self.turn = turn
            self.named_turn = {k: v for k, v in named.items() if k in self.words and isinstance(v, int)}
            for tool_use_id in self.words.keys() - self.named_turn.keys():
                self.named_turn[tool_use_id] = turn

    def carried_into(self, fresh: NameIndex) -> None:
        """A compaction's new history: its verbatim results keep the turns they were named in."""
        fresh.turn = self.turn
        fresh.named_turn = {k: self.named_turn.get(k, self.turn) for k in fresh.words}

