"""The ACP Agent (the SDK's `acp.Agent` protocol): sessions in, answers out.

Each method is what the SDK's router calls with the request's fields already
validated against the schema (an invalid request is answered -32602 by the
SDK; a method this class does not define, -32601). What a method cannot do is
an ACP error: -32002 for an unknown session (ACP: "a given resource, such as a
session or file, was not found"), -32602 for bad parameters. Session
methods answer from the store (agent/store): session/list is the store's
sessions of a folder, session/load resumes one and replays it.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError, schema

from ..agent.conversations import ConversationError, delete_stored, stored_sessions
from ..agent.visible import excerpt
from ..agent.plan_mode import ModeError
from . import protocol
from .modes import modes
from .session import AcpSession

log = logging.getLogger(__name__)

PAGE = 100  # sessions per session/list page


def _version() -> str:
    try:
        return version("agentls")
    except PackageNotFoundError:
        return "0"


def not_found(session_id: str) -> RequestError:
    shown = excerpt(session_id)  # a client's id is quoted cut, never echoed whole
    return RequestError(-32002, f"Session not found: {shown} (open one with session/new or session/load)",
                        {"sessionId": shown})


class AcpAgent:
    def __init__(self, after_answer: Callable[[Callable[[dict[str, Any]], bool]], asyncio.Future[None]]
                 | None = None) -> None:
        self.client: Any = None  # the SDK's connection to the client, set by on_connect
        self.offers = protocol.ClientOffers()
        self.sessions: dict[str, AcpSession] = {}
        # Runs work once the client has an answer (a new session's commands follow its id); see transport.py.
        self.after_answer = after_answer
        self._background: set[asyncio.Future[Any]] = set()

    def on_connect(self, conn: Any) -> None:
        self.client = conn

    # ---- initialize ------------------------------------------------------------------------

    async def initialize(self, protocol_version: int, client_capabilities: schema.ClientCapabilities | None = None,
                         client_info: schema.Implementation | None = None, **kwargs: Any) -> schema.InitializeResponse:
        self.offers = protocol.client_offers(client_capabilities)
        if client_info is not None:
            log.info("client: %s %s", client_info.name, client_info.version)
        return protocol.initialize_response(min(protocol_version, PROTOCOL_VERSION), _version())

    async def authenticate(self, method_id: str, **kwargs: Any) -> schema.AuthenticateResponse:
        raise RequestError.invalid_params({"methodId": f"{excerpt(method_id)} is not offered: the agent reads its API "
                                                       "key from ANTHROPIC_API_KEY (or uses the offline demo model)"})

    # ---- sessions ----------------------------------------------------------------------------

    async def new_session(self, cwd: str, additional_directories: list[str] | None = None,
                          mcp_servers: list[Any] | None = None, **kwargs: Any) -> schema.NewSessionResponse:
        session = await AcpSession.open(self.client, self.offers, _roots(cwd, additional_directories), mcp_servers)
        self.sessions[session.id] = session
        sent = self.after_answer(lambda message: _answers_session(message, session.id)) if self.after_answer else None
        self._later(self._announce(session, sent))
        return schema.NewSessionResponse(session_id=session.id, modes=modes(session.agent.mode))

    async def load_session(self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None,
                           additional_directories: list[str] | None = None,
                           **kwargs: Any) -> schema.LoadSessionResponse:
        session = await self._resume(cwd, session_id, mcp_servers, additional_directories)
        await session.stream.replay()  # the whole conversation before the answer (session-setup, "Loading")
        await session.announce()
        return schema.LoadSessionResponse(modes=modes(session.agent.mode))

    async def resume_session(self, session_id: str, cwd: str, additional_directories: list[str] | None = None,
                             mcp_servers: list[Any] | None = None, **kwargs: Any) -> schema.ResumeSessionResponse:
        session = await self._resume(cwd, session_id, mcp_servers, additional_directories)
        await session.announce()
        return schema.ResumeSessionResponse(modes=modes(session.agent.mode))

    async def _resume(self, cwd: str, session_id: str, mcp_servers: Any,
                      additional_directories: list[str] | None) -> AcpSession:
        roots = _roots(cwd, additional_directories)
        current = self.sessions.get(session_id)
        if current is not None:
            if current.runtime.session_root != roots[0]:
                raise RequestError.invalid_params({"cwd": f"session {excerpt(session_id)} is open in "
                                                          f"{current.runtime.session_root}"})
            return current
        session = await AcpSession.open(self.client, self.offers, roots, mcp_servers, session_id=session_id)
        self.sessions[session.id] = session
        return session

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None,
                            **kwargs: Any) -> schema.ListSessionsResponse:
        start = _page_start(cursor)
        infos = await stored_sessions(Path(cwd) if cwd else None)
        page = infos[start:start + PAGE]
        more = start + PAGE < len(infos)
        return schema.ListSessionsResponse(sessions=[protocol.session_info(info) for info in page],
                                           next_cursor=str(start + PAGE) if more else None)

    async def close_session(self, session_id: str, **kwargs: Any) -> schema.CloseSessionResponse:
        session = self.sessions.pop(session_id, None)
        if session is None:
            raise not_found(session_id)
        await session.aclose()
        return schema.CloseSessionResponse()

    async def delete_session(self, session_id: str, **kwargs: Any) -> schema.DeleteSessionResponse:
        session = self.sessions.pop(session_id, None)
        if session is not None:
            await session.aclose()  # ours: closed first, then it can go
        try:
            deleted = await delete_stored(session_id)
        except ConversationError as error:  # another window holds it
            raise RequestError.invalid_params({"sessionId": str(error)}) from None
        if not deleted:
            raise not_found(session_id)
        return schema.DeleteSessionResponse()

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> schema.SetSessionModeResponse:
        """Plan mode on or off (https://agentclientprotocol.com/protocol/session-modes); takes effect at the
        next tool call, even mid-turn."""
        session = self.sessions.get(session_id)
        if session is None:
            raise not_found(session_id)
        try:
            await session.set_mode(mode_id)
        except ModeError as error:
            raise RequestError.invalid_params({"modeId": str(error)}) from None
        return schema.SetSessionModeResponse()

    # ---- prompts -------------------------------------------------------------------------------

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> schema.PromptResponse:
        session = self.sessions.get(session_id)
        if session is None:
            raise not_found(session_id)
        return schema.PromptResponse(stop_reason=await session.prompt(prompt))

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is None:
            log.warning("session/cancel for unknown session %r ignored", session_id)
            return
        session.cancel()

    # ---- lifetime --------------------------------------------------------------------------------

    async def _announce(self, session: AcpSession, sent: asyncio.Future[None] | None) -> None:
        if sent is not None:
            await sent
        await session.announce()

    def _later(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Future[Any]) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("background update failed: %s", task.exception())

    async def aclose(self) -> None:
        for task in list(self._background):
            task.cancel()
        sessions, self.sessions = list(self.sessions.values()), {}
        for session in sessions:
            try:
                await session.aclose()
            except Exception as error:  # noqa: BLE001 - closing the others matters more
                log.warning("closing session %s: %s", session.id, error)


def _roots(cwd: str, additional: list[str] | None) -> list[Path]:
    """The session's folders: cwd first (where sessions are stored and commands run), then the others."""
    roots = [cwd, *(additional or [])]
    for root in roots:
        if not os.path.isabs(root) or not os.path.isdir(root):
            raise RequestError.invalid_params({"cwd": f"{root!r} must be an absolute path to a folder"})
    return [Path(root) for root in roots]


def _page_start(cursor: str | None) -> int:
    if cursor is None:
        return 0
    if not cursor.isdigit():
        raise RequestError.invalid_params({"cursor": "not a cursor this agent gave"})
    return int(cursor)


def _answers_session(message: dict[str, Any], session_id: str) -> bool:
    result = message.get("result")
    return isinstance(result, dict) and result.get("sessionId") == session_id and "id" in message
