"""agent/clear: a fresh conversation in a new session; the old one stays in the store."""

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
    from ...agent.store import open_session

    with host.exclusive("clear"):
        session = await asyncio.to_thread(open_session, host.session_root, new=True)  # never fails: at worst unsaved
        agent.clear(session)
        host.show_session_problems()
        if host.policy is not None:
            host.policy.forget()  # "always for this session" ends with the session
    host.notify_context_usage()
    return {}
