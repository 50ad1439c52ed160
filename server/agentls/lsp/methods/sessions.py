"""Conversations as sessions: agent/sessions, newSession, resume, renameSession, deleteSession.

Every session lives in the store (agent/store); a window holds a lease on the
one it works on, so another window's current session is listed as in use and
can be neither resumed nor deleted here.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..errors import answers, invalid_params
from ..params import as_object, optional_text, required_text

LIST, NEW, RESUME, RENAME, DELETE = ("agent/sessions", "agent/newSession", "agent/resume",
                                     "agent/renameSession", "agent/deleteSession")


def _wire(info, current: str | None) -> dict[str, Any]:
    return {"id": info.id, "title": info.title or "(untitled)", "workspace": info.workspace,
            "created": info.created, "updated": info.updated, "turns": info.turns, "tokens": info.tokens,
            "costUsd": round(info.cost_usd, 6), "inUse": info.in_use and info.id != current,
            "current": info.id == current}


def _matches(entry: dict[str, Any], query: str) -> bool:
    return all(word in entry["title"].lower() or word in entry["id"].lower() for word in query.lower().split())


async def _with_store(work):
    """Run work(store) on a store of its own, off the event loop."""
    from ...agent.store import SessionStore

    def run():
        store = SessionStore.open()
        try:
            return work(store)
        finally:
            store.close()

    return await asyncio.to_thread(run)


def _current_id(agent) -> str | None:
    return agent.session.id if agent.session is not None else None


@answers
async def list_sessions(ls, params: Any) -> dict[str, Any]:
    query = optional_text(as_object(params), "query") or ""
    host = ls.host
    agent = await host.agent()
    current = _current_id(agent)
    infos = await _with_store(lambda store: store.sessions(host.session_root))
    entries = [_wire(info, current) for info in infos]
    if current is not None and not any(e["current"] for e in entries):
        # Not written yet (no prompt so far): still the window's conversation.
        entries.insert(0, {"id": current, "title": "(new chat)", "workspace": str(host.session_root),
                           "created": 0.0, "updated": 0.0, "turns": 0, "tokens": 0, "costUsd": 0.0,
                           "inUse": False, "current": True})
    return {"sessions": [e for e in entries if _matches(e, query)], "current": current}


@answers
async def new_session(ls, params: Any) -> dict[str, Any]:
    as_object(params)
    host = ls.host
    agent = await host.agent()
    from ...agent.store import open_session

    with host.exclusive("new chat"):
        session = await asyncio.to_thread(open_session, host.session_root, new=True)
        agent.clear(session)
        host.show_session_problems()
        if host.policy is not None:
            host.policy.forget()
    host.notify_context_usage()
    return {"sessionId": session.id}


@answers
async def resume(ls, params: Any) -> dict[str, Any]:
    session_id = required_text(as_object(params), "sessionId")
    host = ls.host
    agent = await host.agent()
    from ...agent.store import StoreError, open_session
    from .checkpoints import transcript_of

    if session_id == _current_id(agent):
        return {"sessionId": session_id, "transcript": await transcript_of(agent)}
    with host.exclusive("session switch"):
        try:
            session = await asyncio.to_thread(open_session, host.session_root, session_id=session_id)
        except StoreError as error:
            raise invalid_params(str(error)) from None
        agent.resume(session)
        host.show_session_problems()
        if host.policy is not None:
            host.policy.forget()
    host.notify_context_usage()
    return {"sessionId": session.id, "transcript": await transcript_of(agent)}


@answers
async def rename(ls, params: Any) -> dict[str, Any]:
    obj = as_object(params)
    session_id, title = required_text(obj, "sessionId"), required_text(obj, "title")
    found = await _with_store(lambda store: store.rename(session_id, title[:200]))
    if not found:
        raise invalid_params(f"no session {session_id}")
    return {}


@answers
async def delete(ls, params: Any) -> dict[str, Any]:
    session_id = required_text(as_object(params), "sessionId")
    agent = await ls.host.agent()
    if session_id == _current_id(agent):
        raise invalid_params("this window's current session cannot be deleted; start a new chat first")
    from ...agent.store import StoreError

    try:
        found = await _with_store(lambda store: store.delete(session_id))
    except StoreError as error:
        raise invalid_params(str(error)) from None
    if not found:
        raise invalid_params(f"no session {session_id}")
    return {}


HANDLERS = {LIST: list_sessions, NEW: new_session, RESUME: resume, RENAME: rename, DELETE: delete}
