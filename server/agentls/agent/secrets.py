"""Keeping secrets (the API key, MCP servers' env and header values) out of every byte we write
besides the model request: the one home of secret scrubbing, used by every front end.

`SECRETS` knows the values in play (the apiKey option, ANTHROPIC_API_KEY,
ANTHROPIC_AUTH_TOKEN, MCP servers' env and header values: the MCP manager adds
those of every server it is given) and scrubs them from log records and error
messages. Patterns catch a key, or the value of an MCP `env`/`headers` field
whatever its shape (a map, a list, a string: a malformed one is logged too),
before it is registered (pygls logs initialize params before any handler runs).

A value of four characters or more is masked wherever it occurs. A shorter
one (a PIN, a two-letter token) is masked too, but only as a whole word:
masking every "7" of a message would make it unreadable, and a short secret
in a message stands as a value of its own (`"X-Pin": "42"`, `token=ab1`).

`log_to_stderr` is every front end's log set-up (LSP, ACP, the terminal): one
stderr handler, scrubbed.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from collections.abc import Iterable

from .. import credentials

MASK = "***"
SHORT = 4


def mask_values(text: str, values: Iterable[str], mask: str = MASK) -> str:
    unique = {value for value in values if isinstance(value, str) and value}
    for value in sorted((v for v in unique if len(v) >= SHORT), key=len, reverse=True):
        text = text.replace(value, mask)
    short = sorted((v for v in unique if len(v) < SHORT), key=len, reverse=True)
    if short:
        words = "|".join(re.escape(value) for value in short)
        text = re.sub(rf"(?<![A-Za-z0-9])(?:{words})(?![A-Za-z0-9])", mask, text)
    return text


# `apiKey: '...'`, `"apiKey": "..."`, `api_key='...'` in reprs and JSON.
_KEY_FIELD = re.compile(r"""(['"]?(?:apiKey|api_key|x-api-key)['"]?\s*[:=]\s*)(['"])(?:(?!\2).)*\2""", re.IGNORECASE)
_ANTHROPIC_KEY = re.compile(r"sk-ant-[A-Za-z0-9_\-]{4,}")
# An MCP server's `env` / `headers` field (secrets) in logged settings, before the settings are parsed.
_SECRET_FIELD = re.compile(r"""['"](?:env|headers)['"]\s*:\s*""")
_OPENERS = {"{": "}", "[": "]"}


def _value_end(text: str, start: int) -> int:
    """Where the JSON/repr value starting at `start` ends: a balanced {…} or […], a quoted string, or a
    bare word. Quotes inside are respected; an unbalanced value runs to the end of the text."""
    if start >= len(text):
        return start
    first = text[start]
    if first in "\"'":
        index = start + 1
        while index < len(text) and text[index] != first:
            index += 2 if text[index] == "\\" else 1
        return min(index + 1, len(text))
    if first not in _OPENERS:
        match = re.compile(r"[^,}\]\s]*").match(text, start)
        return match.end() if match else start
    depth, index, quote = 0, start, ""
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return len(text)


def _mask_secret_fields(text: str) -> str:
    out, position = [], 0
    for match in _SECRET_FIELD.finditer(text):
        if match.start() < position:
            continue  # inside a value already masked
        end = _value_end(text, match.end())
        out.append(text[position:match.end()] + MASK)
        position = end
    return "".join(out) + text[position:]


class Secrets:
    def __init__(self) -> None:
        self._values: set[str] = set()

    def add(self, value: object) -> None:
        if isinstance(value, str) and value:  # any length: a short one is masked as a whole word
            self._values.add(value)

    def scrub(self, text: str) -> str:
        text = mask_values(text, self._values, MASK)
        text = _KEY_FIELD.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}{m.group(2)}", text)
        text = _mask_secret_fields(text)
        return _ANTHROPIC_KEY.sub("sk-ant-" + MASK, text)


SECRETS = Secrets()


def learn_environment_secrets() -> None:
    """The key and the proxy token from the environment (call after credentials.take_from_environment)."""
    for name in credentials.NAMES:
        SECRETS.add(credentials.get(name))


learn_environment_secrets()


class ScrubbingFormatter(logging.Formatter):
    """Every log line with the known secrets masked."""

    def format(self, record: logging.LogRecord) -> str:
        return SECRETS.scrub(super().format(record))


def log_level(default: str = "warning") -> int:
    """The level AGENTLS_LOG asks for (debug, info, warning…), `default` when unset or unknown."""
    name = os.environ.get("AGENTLS_LOG", default).upper()
    level = logging.getLevelName(name)
    return level if isinstance(level, int) else logging.getLevelName(default.upper())


def log_to_stderr(level: int, prefix: str, filters: Iterable[logging.Filter] = ()) -> None:
    """Logs go to stderr only (stdout may be the protocol), scrubbed; the handlers set before are replaced
    (the SDK's own `ANTHROPIC_LOG` handler included), so no record leaves unscrubbed."""
    learn_environment_secrets()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(ScrubbingFormatter(prefix + " %(levelname)s %(name)s: %(message)s"))
    for item in filters:
        handler.addFilter(item)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
