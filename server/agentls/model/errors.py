"""ModelError: the one exception a model call ends with when it fails."""

from __future__ import annotations

import re

_TOO_LONG = re.compile(r"too long|too large|exceeds? .*(context|maximum|limit)|maximum context|"
                       r"context.{0,20}(length|window)", re.IGNORECASE)


class ModelError(Exception):
    """A model call failed for good.

    message is written for a human ("Anthropic API overloaded (529) after
    5 attempts") and never contains the API key. status is the HTTP status
    when there was one; retryable says whether trying again later may help.
    """

    def __init__(self, message: str, status: int | None = None, retryable: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retryable = retryable

    def __repr__(self) -> str:
        return f"ModelError({self.message!r}, status={self.status!r}, retryable={self.retryable!r})"


def redact(text: str, *secrets: str | None) -> str:
    """text with every occurrence of each secret masked (defence in depth for server-echoed text)."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return text


def is_too_long(status: int | None, message: str) -> bool:
    """Whether a refused request was refused for its size (400 "prompt is too long", 413)."""
    return status == 413 or (status == 400 and _TOO_LONG.search(message) is not None)


# The 400 for a thinking block that failed its prefix check, as documented
# (https://platform.claude.com/docs/en/build-with-claude/preserved-thinking/fix-bound-to-a-different-conversation):
# "messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different
# conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block"."
# — possibly followed by a sentence naming what changed.
_PREFIX_MISMATCH = re.compile(r"bound to a different conversation", re.IGNORECASE)
_BLOCK_PATH = re.compile(r"messages\.\d+\.content\.\d+")


def is_prefix_mismatch(status: int | None, message: str) -> bool:
    """Whether a refused request was refused because a thinking block failed its prefix check."""
    return status == 400 and _PREFIX_MISMATCH.search(message) is not None


def mismatch_path(message: str) -> str:
    """The block the prefix-mismatch error names (`messages.N.content.M`), "" when it names none."""
    found = _BLOCK_PATH.search(message)
    return found.group(0) if found else ""
