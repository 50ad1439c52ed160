"""agent/clear: a fresh conversation in a new session log; the old one stays on disk."""

from __future__ import annotations

import asyncio
from typing import Any

from ..errors import answers
from ..params import as_object

METHOD = "agent/clear"


@answers
async def handle(ls, params: Any) -> dict[str, Any]:
    as_object(params)
    host = ls.host
    agent = await host.agent()
    from ...agent.session import SessionLog

    with host.exclusive("clear"):
        try:
            session = await asyncio.to_thread(SessionLog.open, host.session_root, new=True)
        except OSError:
            session = None  # still clear; this conversation just is not saved
        agent.clear(session)
        if host.policy is not None:
            host.policy.forget()  # "always for this session" ends with the session
    host.notify_context_usage()
    return {}
