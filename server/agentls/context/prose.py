"""Clearing the assistant's own old prose: long text and thinking outside the recent turns.

Some agents think aloud before every command (in mini-swe-agent sessions the
assistant's text is a fifth of all characters). Once a turn is a few turns
old its reasoning has done its job (the API itself drops the thinking of
earlier turns); the full text goes to the store and one placeholder names
where to re-read it. Tool calls stay as they are, but for the API's own
(web fetch, search, code execution) answered inside the reply: those leave
with the words (server_results.py). Clearing prose newer than the oldest
result being cleared costs nothing extra: the cache is lost from the first
change of a batch anyway.

On a model that binds thinking to its prefix (``thinking_bound``) this layer
never touches a thinking block: it clears text only (and runs only in the
last resort, policy.py); the thinking goes through binding.release_thinking,
which lets go of it whole and counts it.
"""

from __future__ import annotations

from collections.abc import Iterator

from .config import ContextConfig
from .blocks import block_chars, blocks_of
from .history import THINKING_TYPES, History, prose_chars
from .server_results import pair_chars
from .placeholders import PLACEHOLDER_TOKENS, worth_rewriting
from .rewrite import CLEAR_PROSE, THINKING_ONLY, Rewrite


def plan_clear_prose(history: History, config: ContextConfig, keep_recent: int) -> Iterator[Rewrite]:
    """Prose of all but the keep_recent newest assistant messages; on a model that does not bind thinking,
    the thinking of all but the thinking_keep_recent newest (their words stay)."""
    boundary = _recent_turns_start(history, keep_recent)
    thinking_until = boundary if config.thinking_bound else _recent_turns_start(history, config.thinking_keep_recent)
    for msg_index in history.live_texts:  # in message order
        if msg_index >= max(boundary, thinking_until):
            return
        message = history.messages[msg_index]
        blocks = blocks_of(message)
        if msg_index >= boundary:  # a recent message: only its thinking goes
            saves = config.tokens(sum(block_chars(b) for b in blocks if b.get("type") in THINKING_TYPES)) \
                - PLACEHOLDER_TOKENS
            if worth_rewriting(saves):
                yield Rewrite("", CLEAR_PROSE, saves, message=msg_index, block=THINKING_ONLY)
            continue
        chars = (sum(block_chars(b) for b in blocks if b.get("type") == "text") + pair_chars(blocks)
                 if config.thinking_bound else prose_chars(message))
        saves = config.tokens(chars) - PLACEHOLDER_TOKENS
        if worth_rewriting(saves):
            yield Rewrite("", CLEAR_PROSE, saves, message=msg_index)


def _recent_turns_start(history: History, keep_recent: int) -> int:
    """Index of the oldest of the keep_recent newest assistant messages (at least the newest one)."""
    start, seen = len(history.messages), 0
    for index in range(len(history.messages) - 1, -1, -1):
        if seen >= max(1, keep_recent):
            break
        if history.messages[index]["role"] == "assistant":
            seen += 1
            start = index
    return start
