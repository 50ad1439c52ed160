"""The language server's log set-up: the core's scrubbed stderr log (agent/secrets.py), minus the
tracebacks pygls logs for the error answers we give on purpose."""

from __future__ import annotations

import logging

from pygls.exceptions import JsonRpcException

from ..agent.secrets import log_level, log_to_stderr


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
    log_to_stderr(log_level(), "agentls", [_QuietExpectedErrors(expected)])
