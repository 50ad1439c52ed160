"""Conversations as sessions: agent/sessions, newSession, resume, renameSession, deleteSession.

Every session lives in the store (agent/store); a window holds a lease on the
one it works on, so another window's current session is listed as in use and
can be neither resumed, renamed nor deleted here. A session belongs to the
workspace (first root) it was created for: another workspace's is answered as
unknown (-32602), whatever its id. A session database another process keeps
locked is waited for (bounded, agent/store), then answered -32002: the window
keeps its conversation, never going on in an unsaved copy.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ...agent.visible import excerpt
from .. import protocol
from ..errors import answers, invalid_params, turn_running
from ..params import as_object, optional_text, required_text

LIST, NEW, RESUME, RENAME, DELETE = (protocol.SESSIONS, protocol.NEW_SESSION, protocol.RESUME,
                                     protocol.RENAME_SESSION, protocol.DELETE_SESSION)


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
async def list_sessions(ls, params: Any) -> protocol.SessionsResult:
    from ...agent.store.sessions import SessionInfo, matches  # the store loads with the agent

    query = optional_text(as_object(params), "query") or ""
    host = ls.host
    agent = await host.agent()
    current = _current_id(agent)
    infos = await _with_store(lambda store: store.sessions(host.session_root))
    if current is not None and not any(info.id == current for info in infos):
        # Not written yet (no prompt so far): still the window's conversation.
        infos.insert(0, SessionInfo(current, str(host.session_root), "(new chat)", 0.0, 0.0, 0, 0, 0.0, False))
    return {"sessions": [protocol.session_info(info, current) for info in infos if matches(info, query)],
            "current": current}


@answers
async def new_session(ls, params: Any) -> protocol.NewSessionResult:
    as_object(params)
    host = ls.host
    agent = await host.agent()
    from ...agent.store import StoreBusy, open_session

    with agent.exclusive("new chat"):
        try:  # a busy store is waited for (bounded), then refused: the window keeps its conversation
            session = await asyncio.to_thread(open_session, host.session_root, new=True, raise_busy=True)
        except StoreBusy as error:
            raise turn_running(str(error)) from None
        agent.clear(session)
        host.show_session_problems()
        if host.policy is not None:
            host.policy.forget()
    host.notify_context_usage()
    return {"sessionId": session.id}


@answers
async def resume(ls, params: Any) -> protocol.ResumeResult:
    session_id = required_text(as_object(params), "sessionId")
    host = ls.host
    agent = await host.agent()
    from ...agent.store import StoreBusy, StoreError, open_session

    if session_id == _current_id(agent):
        return {"sessionId": session_id, "transcript": protocol.transcript(await agent.transcript())}
    with agent.exclusive("session switch"):
        try:
            session = await asyncio.to_thread(open_session, host.session_root, session_id=session_id,
                                              raise_busy=True)
        except StoreBusy as error:
            raise turn_running(str(error)) from None
        except StoreError as error:
            raise invalid_params(str(error)) from None
        agent.resume(session)
        host.show_session_problems()
        if host.policy is not None:
            host.policy.forget()
    host.notify_context_usage()
    return {"sessionId": session.id, "transcript": protocol.transcript(await agent.transcript())}


@answers
async def rename(ls, params: Any) -> dict[str, Any]:
    obj = as_object(params)
    session_id, title = required_text(obj, "sessionId"), required_text(obj, "title")
    host = ls.host
    agent = await host.agent()
    # This window may rename the session it holds itself; a session another window holds is refused.
    owner = agent.session.owner if agent.session is not None and agent.session.id == session_id else None
    from ...agent.store import StoreError

    try:
        found = await _with_store(lambda store: store.rename(session_id, title[:200], workspace=host.session_root,
                                                             owner=owner))
    except StoreError as error:
        raise invalid_params(str(error)) from None
    if not found:
        raise invalid_params(f"no session {excerpt(session_id)} in this workspace")
    return {}


@answers
async def delete(ls, params: Any) -> dict[str, Any]:
    session_id = required_text(as_object(params), "sessionId")
    host = ls.host
    agent = await host.agent()
    if session_id == _current_id(agent):
        raise invalid_params("this window's current session cannot be deleted; start a new chat first")
    from ...agent.store import StoreError

    try:
        found = await _with_store(lambda store: store.delete(session_id, workspace=host.session_root))
    except StoreError as error:
        raise invalid_params(str(error)) from None
    if not found:
        raise invalid_params(f"no session {excerpt(session_id)} in this workspace")
    return {}


HANDLERS = {LIST: list_sessions, NEW: new_session, RESUME: resume, RENAME: rename, DELETE: delete}
