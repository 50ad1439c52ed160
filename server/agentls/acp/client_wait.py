"""How long a request the agent delegates to the ACP client may go unanswered.

fs/read_text_file and terminal/create are answered by the editor; one that
never answers must not hold the turn (and the session's one prompt) forever.
Past CLIENT_SECONDS the tool call fails with an error that names the editor;
AGENTLS_ACP_CLIENT_SECONDS overrides it (docs/acp.md). A running command's
own wait (terminal/wait_for_exit) is bounded by the shell timeout instead.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable
from typing import TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

CLIENT_SECONDS = 30.0
ENV = "AGENTLS_ACP_CLIENT_SECONDS"


def client_seconds() -> float:
    raw = os.environ.get(ENV)
    if raw is None:
        return CLIENT_SECONDS
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not 0 < value <= 3600:
        log.warning("%s=%r is not a number of seconds in (0, 3600]; %g s is used", ENV, raw[:40], CLIENT_SECONDS)
        return CLIENT_SECONDS
    return value


def raise_if_cancelled() -> None:
    """Raise the cancel a wait swallowed. Before Python 3.12, a cancel that lands as the awaited answer
    arrives is lost: asyncio.wait_for returns the answer and the turn runs on (the editor answered
    terminal/create just as the user pressed stop: the command then ran to its end, and the turn with it).
    The task still counts the cancel (Task.cancelling, 3.11+)."""
    cancelling = getattr(asyncio.current_task(), "cancelling", None)
    if cancelling is not None and cancelling():
        raise asyncio.CancelledError


async def client_answer(answer: Awaitable[T], seconds: float) -> T:
    """asyncio.wait_for of a client's answer, without losing a cancelled turn (raise_if_cancelled)."""
    result = await asyncio.wait_for(answer, seconds)
    raise_if_cancelled()
    return result
