"""Faults the mock API can be told to produce on the next /v1/messages request.

Each fault is consumed by exactly one request. `status` and `hang` replace
the answer; `disconnect`, `truncate`, `stream_error` and `slow` change how the answer
(scripted reply or demo agent) is streamed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# The error "type" the real API puts in its error body for each status.
# Faults that cut a streamed answer short; the client's retry should get it whole.
INTERRUPTING = ("disconnect", "truncate", "stream_error", "bad_data")

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    502: "api_error",
    503: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}

_DEFAULT_MESSAGES = {
    "rate_limit_error": "Number of request tokens has exceeded your per-minute rate limit",
    "overloaded_error": "Overloaded",
    "api_error": "Internal server error",
}


def error_body(error_type: str, message: str) -> dict:
    return {"type": "error", "error": {"type": error_type, "message": message}}


@dataclass(frozen=True)
class Fault:
    kind: str  # "status" | "disconnect" | "truncate" | "stream_error" | "bad_data" | "slow" | "hang"
    status: int = 0
    error_type: str = ""
    message: str = ""
    retry_after: float | None = None
    after_events: int = 0
    reset: bool = False
    delay: float = 0.0

    @classmethod
    def http_status(cls, status: int, *, retry_after: float | None = None,
                    error_type: str | None = None, message: str | None = None) -> Fault:
        """An HTTP error answer with the Anthropic error JSON body (and retry-after if given)."""
        kind = error_type or ERROR_TYPES.get(status, "api_error")
        return cls("status", status=status, error_type=kind,
                   message=message or _DEFAULT_MESSAGES.get(kind, kind.replace("_", " ")),
                   retry_after=retry_after)

    @classmethod
    def disconnect(cls, after_events: int = 3, *, reset: bool = False) -> Fault:
        """Drop the connection after `after_events` SSE events (reset=True sends a TCP RST)."""
        return cls("disconnect", after_events=after_events, reset=reset)

    @classmethod
    def truncate(cls, after_events: int = 3) -> Fault:
        """End the response body cleanly after `after_events` events, before message_stop
        (what a misbehaving proxy does): no transport error, just an incomplete stream."""
        return cls("truncate", after_events=after_events)

    @classmethod
    def stream_error(cls, after_events: int = 3, *, error_type: str = "overloaded_error") -> Fault:
        """Send an SSE `error` event mid-stream, as the real API does when overloaded."""
        return cls("stream_error", after_events=after_events, error_type=error_type,
                   message=_DEFAULT_MESSAGES.get(error_type, error_type))

    @classmethod
    def bad_data(cls, after_events: int = 3) -> Fault:
        """Send an SSE event whose data is not valid JSON (a broken proxy), then end the stream."""
        return cls("bad_data", after_events=after_events)

    @classmethod
    def slow(cls, delay: float) -> Fault:
        """Sleep `delay` seconds before every SSE event."""
        return cls("slow", delay=delay)

    @classmethod
    def hang(cls) -> Fault:
        """Never answer (until the server is closed): for client timeouts."""
        return cls("hang")


def fault_from_json(raw: dict) -> Fault:
    kind = raw.get("kind")
    if kind == "status":
        return Fault.http_status(int(raw["status"]), retry_after=raw.get("retry_after"),
                                 error_type=raw.get("error_type"), message=raw.get("message"))
    if kind == "disconnect":
        return Fault.disconnect(int(raw.get("after_events", 3)), reset=bool(raw.get("reset", False)))
    if kind == "truncate":
        return Fault.truncate(int(raw.get("after_events", 3)))
    if kind == "stream_error":
        return Fault.stream_error(int(raw.get("after_events", 3)),
                                  error_type=raw.get("error_type", "overloaded_error"))
    if kind == "bad_data":
        return Fault.bad_data(int(raw.get("after_events", 3)))
    if kind == "slow":
        return Fault.slow(float(raw["delay"]))
    if kind == "hang":
        return Fault.hang()
    raise ValueError(f"unknown fault kind {kind!r}")


def is_fault_entry(raw: Any) -> bool:
    return isinstance(raw, dict) and "fault" in raw
