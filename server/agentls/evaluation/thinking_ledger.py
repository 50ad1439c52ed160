"""Thinking on every reply of a replayed session, signed as the API signs it, and counted when a request breaks it.

The recorded traces carry no thinking. A model with preserved thinking (claude-sonnet-5-5 and the others of
model/binding.py) opens every reply with a thinking block bound to the request that produced it: the
top-level ``system``, ``tools`` and every earlier message (docs:
https://platform.claude.com/docs/en/build-with-claude/preserved-thinking/prefix-checks). mock_api/binding.py
is the API's side of that contract: ``produce`` signs a block against its request, ``check`` names the
carried blocks whose prefix changed since. A block this ledger counts as invalidated is one the API would
answer with a 400 (or drop, with every later block).

The replay's ``system`` and ``tools`` never change (the policies compared rewrite messages only): they
are a fixed text and no tools here, priced as replay.SYSTEM_TOKENS.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..context.blocks import Message, blocks_of
from ..mock_api.binding import BindingFailure, BindingRegistry, is_thinking

SYSTEM_TEXT = "The replayed agent's system prompt (unchanged for the whole session)."
TOOLS: list[dict[str, Any]] = []
THINKING_CHARS = 800  # ~200 tokens of adaptive thinking before each reply (the replay's assumption)


def thinking_text(trace: str, index: int, chars: int = THINKING_CHARS) -> str:
    """A deterministic thinking text for the reply at messages[index], different for every reply."""
    seed = hashlib.sha1(f"{trace}:{index}".encode()).hexdigest()
    line = f"Reply {index}: weighing the last results before acting ({seed}). "
    return (line * (chars // len(line) + 1))[:chars]


def strip_thinking(message: Message) -> Message:
    """`message` without its thinking blocks (the same object when it has none)."""
    content = message.get("content")
    if not isinstance(content, list) or not any(is_thinking(b) for b in content):
        return message
    return {**message, "content": [b for b in content if not is_thinking(b)]}


def _block_at(messages: list[Message], path: str) -> dict[str, Any]:
    _, message, _, block = path.split(".")
    return dict(blocks_of(messages[int(message)])[int(block)])


def without_failed(messages: list[Message], failures: list[BindingFailure]) -> list[Message]:
    """`messages` without the thinking blocks that fail (every block from the first failure on)."""
    doomed: dict[int, set[int]] = {}
    for failure in failures:
        _, message, _, block = failure.path.split(".")
        doomed.setdefault(int(message), set()).add(int(block))
    return [{**m, "content": [b for j, b in enumerate(blocks_of(m)) if j not in doomed[i]]} if i in doomed else m
            for i, m in enumerate(messages)]


class ThinkingLedger:
    """The API's memory of the blocks it signed, and what the requests of one policy broke."""

    def __init__(self) -> None:
        self.registry = BindingRegistry()
        self.invalidated: set[str] = set()  # signatures of the blocks some request carried after a change
        self.failing_requests = 0  # requests the API would refuse (400) or answer with blocks dropped

    def sign(self, request: list[Message], reply: Message, text: str) -> Message:
        """`reply` opened by a thinking block produced for `request`."""
        block = self.registry.produce(SYSTEM_TEXT, TOOLS, request, [], {"type": "thinking", "thinking": text})
        return {**reply, "content": [block, *blocks_of(reply)]}

    def failures(self, request: list[Message]) -> list[BindingFailure]:
        return self.registry.check(SYSTEM_TEXT, TOOLS, request)

    def count(self, request: list[Message]) -> list[BindingFailure]:
        """Check a request the policy sends; remember the blocks it carries that fail."""
        failures = self.failures(request)
        self.invalidated.update(str(_block_at(request, f.path).get("signature")) for f in failures)
        self.failing_requests += bool(failures)
        return failures
