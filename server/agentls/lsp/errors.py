"""JSON-RPC errors the agent/* methods answer with (docs/protocol.md, "Errors").

Every handler is wrapped by `answers`: expected failures are raised as
`JsonRpcException`s with a readable message; anything unexpected becomes a
plain -32603 whose message is scrubbed of secrets and carries no traceback
(pygls would otherwise put one in `data`).
"""

from __future__ import annotations

import functools
import logging
from typing import Any
from collections.abc import Awaitable, Callable

from pygls.exceptions import JsonRpcException

from ..agent.errors import AgentBusy, AgentError, AgentInputError
from ..agent.secrets import SECRETS

log = logging.getLogger(__name__)

INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
PARSE_ERROR = -32700
TURN_RUNNING = -32002  # also LSP's ServerNotInitialized: both mean "not now"
REQUEST_CANCELLED = -32800

# Errors that are answers to the client, not faults of the server (not logged as such).
EXPECTED_CODES = frozenset({INVALID_PARAMS, TURN_RUNNING, REQUEST_CANCELLED, INTERNAL_ERROR})


def invalid_params(message: str) -> JsonRpcException:
    return JsonRpcException(message=message, code=INVALID_PARAMS)


def turn_running(message: str = "a turn is already running; cancel it or wait") -> JsonRpcException:
    return JsonRpcException(message=message, code=TURN_RUNNING)


def not_initialized() -> JsonRpcException:
    return JsonRpcException(message="the server is not initialized yet (send initialize first)", code=TURN_RUNNING)


def internal(message: str) -> JsonRpcException:
    return JsonRpcException(message=SECRETS.scrub(message), code=INTERNAL_ERROR)


Handler = Callable[..., Awaitable[Any]]


def answers(handler: Handler) -> Handler:
    """Turn every failure of an async request handler into a clean JSON-RPC error."""

    @functools.wraps(handler)
    async def wrapped(*args: Any, **kwargs: Any) -> Any:
        try:
            return await handler(*args, **kwargs)
        except JsonRpcException as error:
            error.message = SECRETS.scrub(error.message)
            raise
        except AgentBusy as error:
            raise turn_running(str(error)) from None
        except AgentInputError as error:  # what the client sent cannot be used (an image the API refuses)
            raise invalid_params(str(error)) from None
        except AgentError as error:  # the model or the agent failed: said in plain words, never a traceback
            log.warning("%s: %s", handler.__name__, SECRETS.scrub(str(error)))
            raise internal(str(error)) from None
        except Exception as error:  # noqa: BLE001 - the last line before the wire
            log.exception("%s failed", handler.__name__)
            raise internal(f"{handler.__name__} failed: {type(error).__name__}: {error}") from None

    return wrapped
