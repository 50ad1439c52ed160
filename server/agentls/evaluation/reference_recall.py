"""Reference recall: of what the recorded replies use from earlier results, how much each request still carries.

A recorded reply *references* an earlier tool result (or a result the harness sent as user text,
text_results.py, or one the API's own tool answered inside a reply, server_results.py) when it names
something (a path, a symbol, a number long enough to be specific: an identifier-like word of 8+ characters)
that the conversation first showed in that result and that few messages had shown by then (rare words only:
a word in most results names nothing in particular). The reference is *kept* when every such word of that
result is still somewhere in the request the reply answered, whatever the distance back: a policy that
cleared the result but keeps the word elsewhere (a summary, a later result) loses nothing; one that kept
only the newest results does.

Each missing reference is priced as a re-read: the model calls read_file on the ``context://`` ref and the
result comes back as new input, written to the cache (``reread_tokens``, at the write price by the caller).
This replaces the old figure (the share of the 10 newest results carried verbatim), which observation
masking games to 1.000 while 37% of real references reach further back (issue 31).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..context.blocks import Message, blocks_of, result_text
from ..context.naming import written_text
from ..context.server_results import is_server_result, readable_text
from ..context.text_results import clearable_text, ends_in_call
from ..context.tokens import CHARS_PER_TOKEN

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]{7,}")
RARE_MESSAGES = 2  # a word shown in more messages than this before the reply names nothing specific


def words_of(text: str) -> set[str]:
    return set(WORD.findall(text))


def message_text(message: Message) -> str:
    """Every text a message carries: prose, thinking, tool inputs, results."""
    if isinstance(message.get("content"), str):
        return str(message["content"])
    results = [result_text(b) if b.get("type") == "tool_result" else readable_text(b)
               for b in blocks_of(message) if b.get("type") == "tool_result" or is_server_result(b)]
    return "\n".join([written_text(message, thinking=False), *results])


@dataclass
class ReferenceScore:
    references: int = 0
    kept: int = 0
    reread_tokens: float = 0.0  # what re-reading every missing one would add to the prompt


@dataclass
class ReferenceTracker:
    """Fed the recorded messages in order; scores each request against the reply recorded for it."""

    origin: dict[str, str] = field(default_factory=dict)  # word -> the result that first showed it ("" if none)
    shown_in: dict[str, int] = field(default_factory=dict)  # word -> messages that showed it so far
    result_tokens: dict[str, float] = field(default_factory=dict)  # result id -> its size as recorded
    _memo: dict[int, tuple[Message, set[str]]] = field(default_factory=dict)
    _previous: Message | None = None  # the last user or assistant message observed
    _tool_calls: bool = False  # the session has made a tool call (its user text is then the user's)
    _observed: int = 0

    def observe(self, message: Message) -> None:
        """A recorded message joins the conversation (before the request that carries it)."""
        blocks = blocks_of(message)
        self._tool_calls = self._tool_calls or any(b.get("type") == "tool_use" for b in blocks)
        results = [(str(b.get("tool_use_id", "")), result_text(b)) for b in blocks if b.get("type") == "tool_result"]
        results += [(str(b.get("tool_use_id", "")), readable_text(b)) for b in blocks if is_server_result(b)]
        if (message["role"] == "user" and not results and not self._tool_calls and self._previous is not None
                and ends_in_call(self._previous)):  # a result the harness sent as text (text_results.py)
            texts = [str(b.get("text", "")) for b in blocks if clearable_text(b)]
            results = [(f"text:{self._observed}", "\n".join(texts))] if texts else []
        self._observed += 1
        if message["role"] != "system":
            self._previous = message
        if message["role"] != "system":  # the API's own tools answer inside the assistant message
            for tool_use_id, text in results:
                self.result_tokens[tool_use_id] = len(text) / CHARS_PER_TOKEN
                for word in words_of(text):
                    self.origin.setdefault(word, tool_use_id)
        for word in words_of(message_text(message)):
            self.origin.setdefault(word, "")
            self.shown_in[word] = self.shown_in.get(word, 0) + 1

    def _words(self, message: Message) -> set[str]:
        hit = self._memo.get(id(message))
        if hit is None or hit[0] is not message:  # messages are copy-on-write: an unchanged one is the same object
            hit = (message, words_of(message_text(message)))
            self._memo[id(message)] = hit
        return hit[1]

    def referenced(self, reply: Message) -> dict[str, set[str]]:
        """The earlier results `reply` refers to (tool_use id -> the rare words it names from each)."""
        wanted: dict[str, set[str]] = {}
        for word in words_of(message_text(reply)):
            source = self.origin.get(word)
            if source and self.shown_in.get(word, 0) <= RARE_MESSAGES:
                wanted.setdefault(source, set()).add(word)
        return wanted

    def score(self, request: list[Message], reply: Message) -> ReferenceScore:
        """The references `reply` makes to earlier results, and how many `request` still carries."""
        wanted = self.referenced(reply)
        score = ReferenceScore(references=len(wanted))
        if not wanted:
            return score
        carried: set[str] = set()
        needed = set().union(*wanted.values())
        for message in request:
            carried |= self._words(message) & needed
        for source, words in wanted.items():
            if words <= carried:
                score.kept += 1
            else:
                score.reread_tokens += self.result_tokens.get(source, 0.0)
        return score
