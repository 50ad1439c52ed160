"""Clearing the assistant's own old prose: long text and thinking outside the recent turns.

Some agents think aloud before every command (in mini-swe-agent sessions the
assistant's text is a fifth of all characters). Once a turn is no longer
recent its reasoning has done its job; the full text goes to the store and
one placeholder names where to re-read it. Tool calls stay as they are.
"""

from __future__ import annotations

from typing import Iterator

from .clearing import recent_start
from .config import ContextConfig
from .history import History, prose_chars
from .placeholders import PLACEHOLDER_TOKENS
from .rewrite import CLEAR_PROSE, Rewrite


def plan_clear_prose(history: History, config: ContextConfig, keep_recent: int) -> Iterator[Rewrite]:
    """Prose of the assistant messages before the recent turns (those holding the keep_recent newest results)."""
    boundary = recent_start(history, config, keep_recent)
    for msg_index in history.live_texts:  # in message order
        if msg_index >= boundary:
            return
        saves = config.tokens(prose_chars(history.messages[msg_index])) - PLACEHOLDER_TOKENS
        if saves > 0:
            yield Rewrite("", CLEAR_PROSE, saves, message=msg_index)
