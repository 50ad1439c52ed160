"""Which failures are worth retrying, how long to wait, and how to say what went wrong.

The SDK and its HTTP library are imported on first use (they are the slowest
imports of the server; a failure can only happen after a call made them load).
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .assembler import IncompleteStream, InvalidStreamData

if TYPE_CHECKING:
    import anthropic

RETRYABLE_STATUSES = frozenset({408, 429, 500, 502, 503, 504, 529})

# An SSE `error` event arrives inside a 200 response; its error type tells the real status.
_STATUS_OF_ERROR_TYPE = {"overloaded_error": 529, "rate_limit_error": 429, "api_error": 500, "timeout_error": 504}

_STATUS_WORDS = {
    400: "rejected the request",
    401: "rejected the API key",
    402: "refused the request for billing reasons",
    403: "denied permission",
    404: "did not find the model or endpoint",
    408: "timed out",
    413: "said the request is too large",
    429: "rate limit exceeded",
    500: "internal error",
    502: "bad gateway",
    503: "unavailable",
    504: "timed out",
    529: "overloaded",
}

@functools.cache
def handled_errors() -> tuple[type[BaseException], ...]:
    """Failures we know how to classify; anything else is a bug and propagates as is."""
    import anthropic
    import httpx2

    return (anthropic.AnthropicError, httpx2.HTTPError, IncompleteStream)


@dataclass(frozen=True)
class Failure:
    retryable: bool
    status: int | None
    reason: str  # short, for Retrying events: "overloaded (529)"
    detail: str = ""  # the server's own explanation, for non-retryable errors
    retry_after: float | None = None


def _retry_after_seconds(headers: object) -> float | None:
    get = getattr(headers, "get", None)
    if get is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = get(name)
        if raw is None:
            continue
        try:
            seconds = float(raw) * scale
        except ValueError:
            continue  # an HTTP date; rare enough to fall back to our own backoff
        if seconds >= 0:
            return seconds
    return None


def _status_failure(error: anthropic.APIStatusError) -> Failure:
    status = error.status_code
    error_type = getattr(error, "type", None) or ""
    if status == 200:  # error event mid-stream
        status = _STATUS_OF_ERROR_TYPE.get(error_type, 500)
    words = _STATUS_WORDS.get(status, "error")
    label = f"{status} {error_type}".strip() if status not in RETRYABLE_STATUSES else str(status)
    return Failure(
        retryable=status in RETRYABLE_STATUSES,
        status=status,
        reason=f"{words} ({label})",
        detail=getattr(error, "api_message", None) or "",
        retry_after=_retry_after_seconds(error.response.headers) if error.status_code != 200 else None,
    )


def classify(error: BaseException) -> Failure:
    import anthropic
    import httpx2

    if isinstance(error, anthropic.APIStatusError):
        return _status_failure(error)
    if isinstance(error, (anthropic.APITimeoutError, httpx2.TimeoutException)):
        return Failure(True, None, "timed out waiting for the server")
    if isinstance(error, anthropic.APIConnectionError):
        return Failure(True, None, "connection failed")
    if isinstance(error, InvalidStreamData):
        return Failure(True, None, "sent invalid stream data")
    if isinstance(error, (httpx2.TransportError, IncompleteStream)):
        return Failure(True, None, "connection dropped mid-reply")
    return Failure(False, None, f"unexpected error ({type(error).__name__})", detail=str(error))


def backoff_delay(retry_number: int, base: float, cap: float, retry_after: float | None) -> float:
    """Seconds to wait before retry number `retry_number` (1-based).

    A server's retry-after wins (it knows when capacity returns); otherwise
    exponential backoff with "equal jitter" so parallel clients spread out.
    """
    if retry_after is not None:
        return retry_after
    ceiling = min(cap, base * (2 ** (retry_number - 1)))
    return ceiling / 2 + random.uniform(0, ceiling / 2)
