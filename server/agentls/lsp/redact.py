"""Keeping the API key out of every byte the server writes besides the model request.

`SECRETS` knows the key values in play (the apiKey option, ANTHROPIC_API_KEY,
ANTHROPIC_AUTH_TOKEN, MCP servers' env and header values) and scrubs them from log
records and error messages, whatever their length (agent/mask.py: a value under
four characters is masked as a whole word). Patterns catch a key, or the value of
an MCP `env`/`headers` field whatever its shape (a map, a list, a string: a
malformed one is logged too), before it is registered (pygls logs initialize
params before any handler runs).
"""

from __future__ import annotations

import logging
import os
import re
import sys

from pygls.exceptions import JsonRpcException

from .. import credentials
from ..agent.mask import MASK, mask_values
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


class _ScrubbingFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return SECRETS.scrub(super().format(record))


class _QuietExpectedErrors(logging.Filter):
    """pygls logs each error response with a traceback; ours are answers, not faults."""

    def __init__(self, expected: frozenset[int]) -> None:
        super().__init__()
        self.expected = expected

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not (isinstance(error, JsonRpcException) and error.code in self.expected)


def setup_logging(expected: frozenset[int]) -> None:
    """Logs go to stderr only (stdout is the protocol), scrubbed; AGENTLS_LOG=debug|info for more."""
    level = getattr(logging, os.environ.get("AGENTLS_LOG", "warning").upper(), logging.WARNING)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_ScrubbingFormatter("agentls %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(_QuietExpectedErrors(expected))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
