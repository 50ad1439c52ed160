"""Events a ModelClient reports while a reply streams in."""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Awaitable, Callable


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ThinkingDelta:
    text: str


@dataclass(frozen=True)
class ToolUseStarted:
    id: str
    name: str


@dataclass(frozen=True)
class Retrying:
    """The request failed and will be sent again after `delay_seconds`.

    attempt is the number of the attempt about to start (2 for the first
    retry) out of max_attempts. When discard_partial is True some deltas of
    the failed attempt were already reported: the caller must drop what it
    rendered from them, because the retry streams the reply from the start.
    """

    attempt: int
    delay_seconds: float
    reason: str
    max_attempts: int = 0
    discard_partial: bool = False


@dataclass(frozen=True)
class BindingRetry:
    """The API refused the request because a thinking block failed its prefix check (400); it is sent once
    more with `prefix_mismatch_behavior: "drop_block"`. `path` names the block (`messages.N.content.M`),
    `detail` the API's words (what changed, when it says)."""

    path: str
    detail: str


ModelEvent = TextDelta | ThinkingDelta | ToolUseStarted | Retrying | BindingRetry
EventHandler = Callable[[ModelEvent], None | Awaitable[None]]
