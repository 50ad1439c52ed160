"""Conversations as sessions: agent/sessions, newSession, resume, renameSession, deleteSession.

Each request is one operation of the core (agent/conversations.py), which
decides what may be done: sessions belong to their workspace (another's is
answered as unknown, -32602), a session another window holds can be neither
resumed, renamed nor deleted, and a session database another process keeps
locked is answered -32002 after a bounded wait (the window keeps its
conversation). This module only reads the params and shapes the answers.
"""

from __future__ import annotations

from typing import Any

from .. import protocol
from ..errors import answers
from ..params import as_object, optional_text, required_text


@answers
async def list_sessions(ls, params: Any) -> protocol.SessionsResult:
    query = optional_text(as_object(params), "query") or ""
    # Not written yet (no prompt so far), the window's own session is still its conversation: listed.
    listed = await (await ls.host.conversations()).sessions(query, unsaved=True)
    return {"sessions": [protocol.session_info(info, listed.current) for info in listed.sessions],
            "current": listed.current}


@answers
async def new_session(ls, params: Any) -> protocol.NewSessionResult:
    as_object(params)
    session_id = await (await ls.host.conversations()).new()
    ls.host.session_switched()
    return {"sessionId": session_id}


@answers
async def resume(ls, params: Any) -> protocol.ResumeResult:
    session_id = required_text(as_object(params), "sessionId")
    conversations = await ls.host.conversations()
    switching = session_id != conversations.current
    resumed = await conversations.resume(session_id)
    if switching:
        ls.host.session_switched()
    return {"sessionId": resumed.session_id, "transcript": protocol.transcript(resumed.transcript)}


@answers
async def rename(ls, params: Any) -> dict[str, Any]:
    obj = as_object(params)
    session_id, title = required_text(obj, "sessionId"), required_text(obj, "title")
    await (await ls.host.conversations()).rename(session_id, title)
    return {}


@answers
async def delete(ls, params: Any) -> dict[str, Any]:
    session_id = required_text(as_object(params), "sessionId")
    await (await ls.host.conversations()).delete(session_id)
    return {}
