"""Keeping the API key out of every byte the server writes besides the model request.

`SECRETS` knows the key values in play (the apiKey option, ANTHROPIC_API_KEY,
ANTHROPIC_AUTH_TOKEN, MCP servers' env and header values) and scrubs them from log
records and error messages. Patterns catch a key, or an MCP `env`/`headers` map,
before it is registered (pygls logs initialize params before any handler runs).
"""

from __future__ import annotations

import logging
import os
import re
import sys

from pygls.exceptions import JsonRpcException

from .. import credentials

MASK = "***"
# `apiKey: '...'`, `"apiKey": "..."`, `api_key='...'` in reprs and JSON.
_KEY_FIELD = re.compile(r"""(['"]?(?:apiKey|api_key|x-api-key)['"]?\s*[:=]\s*)(['"])(?:(?!\2).)*\2""", re.IGNORECASE)
_ANTHROPIC_KEY = re.compile(r"sk-ant-[A-Za-z0-9_\-]{4,}")
# MCP server `env` / `headers` maps (secrets) in logged settings, before the settings are parsed.
_SECRET_MAP = re.compile(r"""(['"](?:env|headers)['"]\s*:\s*)\{(?:[^{}"']|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')*\}""")


class Secrets:
    def __init__(self) -> None:
        self._values: set[str] = set()

    def add(self, value: object) -> None:
        if isinstance(value, str) and len(value) >= 4:
            self._values.add(value)

    def scrub(self, text: str) -> str:
        for value in sorted(self._values, key=len, reverse=True):
            text = text.replace(value, MASK)
        text = _KEY_FIELD.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}{m.group(2)}", text)
        text = _SECRET_MAP.sub(lambda m: f"{m.group(1)}{{{MASK}}}", text)
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
