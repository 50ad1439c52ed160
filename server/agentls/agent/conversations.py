"""Conversation operations, once for every front end: list, new, resume, fork, rewind, rename, delete.

The language server, the ACP agent and the terminal call these and only
translate what comes back. What may be done is decided here:
- a session belongs to the workspace it was created for: another workspace's
  is unknown, whatever its id;
- a session another window holds (its lease) can be neither resumed, renamed
  nor deleted, and the conversation's own session cannot be deleted;
- a session database another process keeps locked is waited for (bounded,
  agent/store), then refused as busy (SessionStoreBusy): the conversation goes
  on, never in an unsaved copy;
- one thing at a time touches the conversation (Agent.exclusive): a switch or
  a rewind while a turn runs is refused as busy;
- a rewind asks before it overwrites files changed outside the agent, unless
  the user already agreed to overwrite every one of them (`overwrite`): each
  conflict is asked about once.
A switch forgets what "Always" allowed for the conversation left behind.
What cannot be done as asked raises ConversationError (plain words, invalid
params on every wire).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from .approval import ApprovalDecision, ApprovalPolicy, ApprovalRequest
from .errors import AgentBusy, AgentInputError
from .visible import excerpt

if TYPE_CHECKING:
    from .checkpoints.model import Checkpoint, FileDiff, RewindPlan, RewindResult, Skipped
    from .loop import Agent
    from .store import SessionStore
    from .store.session import Session
    from .store.sessions import SessionInfo
    from .todos import TodoItem
    from .transcript import TranscriptEntry

RESTORE = ("code", "conversation", "both")  # what a rewind gives back: the files, the conversation, both
CONFLICT_DIFF_CHARS = 4000  # of the conflicting files' diff, put into the question
TITLE_CHARS = 200
UNSAVED_TITLE = "(new chat)"

T = TypeVar("T")
Ask = Callable[[ApprovalRequest], Awaitable[ApprovalDecision]]


class ConversationError(AgentInputError):
    """What was asked cannot be done as asked (an unknown session or checkpoint, the current session
    deleted, a session another window holds): plain words, safe to show."""


class SessionStoreBusy(AgentBusy):
    """Another process kept the session database locked past the bounded wait: nothing changed, try again."""


@dataclass(frozen=True)
class SessionList:
    sessions: list[SessionInfo]  # most recently updated first
    current: str | None  # the conversation's own session (None: none at all)


@dataclass(frozen=True)
class Switched:
    """The conversation now on: its session and what the user saw of it."""

    session_id: str
    transcript: list[TranscriptEntry]


@dataclass(frozen=True)
class Rewound:
    """A rewind and the state it leaves: everything a front end shows after it."""

    result: RewindResult
    transcript: list[TranscriptEntry] | None  # when the conversation was cut back
    todos: tuple[TodoItem, ...]  # the task list now
    checkpoints: list[Checkpoint]  # as listed now (rewound marks, the rewind's own undo checkpoint)


async def _in_store(work: Callable[[SessionStore], T]) -> T:
    """Run work(store) on a store of its own, off the event loop."""
    from .store import SessionStore

    def run() -> T:
        store = SessionStore.open()
        try:
            return work(store)
        finally:
            store.close()

    return await asyncio.to_thread(run)


async def stored_sessions(root: Path | None) -> list[SessionInfo]:
    """The sessions of a workspace (None: of every workspace), most recently updated first."""
    return await _in_store(lambda store: store.sessions(root))


async def delete_stored(session_id: str, workspace: Path | None = None) -> bool:
    """Delete a stored session (of `workspace`, when given); False when there is none. Refused while
    another window holds it."""
    from .store import StoreError

    try:
        return await _in_store(lambda store: store.delete(session_id, workspace=workspace))
    except StoreError as error:
        raise ConversationError(str(error)) from None


class Conversations:
    """The operations on the conversation one runtime hosts (AgentRuntime.conversations)."""

    def __init__(self, agent: Callable[[], Agent | None], session_root: Path, policy: ApprovalPolicy | None,
                 window: str | None = None) -> None:
        self._agent = agent
        self.session_root = session_root
        self.window = window  # remembered with each session opened (store/sessions.py)
        self._policy = policy

    @property
    def agent(self) -> Agent:
        agent = self._agent()
        if agent is None:
            raise RuntimeError("the runtime has not started")
        return agent

    @property
    def current(self) -> str | None:
        session = self.agent.session
        return session.id if session is not None else None

    # ---- the store's sessions ------------------------------------------------------------

    async def sessions(self, query: str = "", *, unsaved: bool = False) -> SessionList:
        """This workspace's sessions matching `query`; `unsaved`: the conversation's own session is
        listed (as "(new chat)") before it is written."""
        from .store.sessions import SessionInfo, matches

        current = self.current
        infos = await stored_sessions(self.session_root)
        if unsaved and current is not None and not any(info.id == current for info in infos):
            infos.insert(0, SessionInfo(current, str(self.session_root), UNSAVED_TITLE, 0.0, 0.0, 0, 0, 0.0, False))
        # a chat that never got a prompt (no title, no turn: only state records, such as a mode or model
        # switched in a new chat) has nothing to resume: listed only while it is this window's own
        listed = [info for info in infos if info.id == current or info.title or info.turns or info.tokens]
        return SessionList([info for info in listed if matches(info, query)], current)

    async def rename(self, session_id: str, title: str) -> None:
        from .store import StoreError

        session = self.agent.session
        # The conversation may rename the session it holds itself; one another window holds is refused.
        owner = session.owner if session is not None and session.id == session_id else None
        try:
            found = await _in_store(lambda store: store.rename(session_id, title[:TITLE_CHARS],
                                                               workspace=self.session_root, owner=owner))
        except StoreError as error:
            raise ConversationError(str(error)) from None
        if not found:
            raise ConversationError(f"no session {excerpt(session_id)} in this workspace")

    async def delete(self, session_id: str) -> None:
        if session_id == self.current:
            raise ConversationError("this window's current session cannot be deleted; start a new chat first")
        if not await delete_stored(session_id, self.session_root):
            raise ConversationError(f"no session {excerpt(session_id)} in this workspace")

    # ---- switching ------------------------------------------------------------------------

    async def new(self) -> str:
        """A fresh conversation (the old one stays in the store); its session id."""
        agent = self.agent
        with agent.exclusive("new chat"):
            session = await self._open(new=True)
            agent.clear(session)
            self._forget()
        return session.id

    async def resume(self, session_id: str) -> Switched:
        """Continue a stored conversation of this workspace (the current one: nothing changes)."""
        agent = self.agent
        if session_id != self.current:
            with agent.exclusive("session switch"):
                session = await self._open(session_id=session_id)
                agent.resume(session)
                self._forget()
        return Switched(session_id, await agent.transcript())

    async def fork(self, checkpoint_id: str) -> Switched:
        """A new session (made current) holding the conversation up to before the checkpoint's prompt."""
        from .checkpoints import CheckpointError
        from .store import open_session, workspace_key
        from .store.rewind import fork_at
        from .store.session import new_session_id

        agent = self.agent
        with agent.exclusive("fork"):
            try:
                seq, at = await agent.fork_point(checkpoint_id)
            except CheckpointError as error:
                raise ConversationError(str(error)) from None
            old = agent.session
            assert old is not None  # a checkpoint was found: the conversation is saved
            await asyncio.to_thread(old.flush)
            new_id = new_session_id()
            await asyncio.to_thread(fork_at, old.db, old.id, seq, at, new_id, workspace_key(self.session_root))
            session = await asyncio.to_thread(functools.partial(open_session, self.session_root, session_id=new_id,
                                                                window=self.window))
            agent.resume(session)
            self._forget()
        return Switched(session.id, await agent.transcript())

    async def _open(self, *, new: bool = False, session_id: str | None = None) -> Session:
        from .store import StoreBusy, StoreError, open_session

        try:  # a conversation is open: a busy store is refused, never replaced by an unsaved copy
            return await asyncio.to_thread(functools.partial(open_session, self.session_root, new=new,
                                                             session_id=session_id, raise_busy=True,
                                                             window=self.window))
        except StoreBusy as error:
            raise SessionStoreBusy(str(error)) from None
        except StoreError as error:
            raise ConversationError(str(error)) from None

    def _forget(self) -> None:
        if self._policy is not None:
            self._policy.forget()

    # ---- checkpoints and rewind ---------------------------------------------------------------

    async def checkpoints(self) -> list[Checkpoint]:
        """The checkpoints that changed files, of turns still in the conversation (oldest first)."""
        agent = self.agent
        return await agent.checkpoints.listed() if agent.checkpoints is not None else []

    async def preview(self, checkpoint_id: str) -> tuple[list[FileDiff], list[Skipped]]:
        """What a rewind of the files to the checkpoint would change (conflicts marked), and what it cannot."""
        from .checkpoints import CheckpointError

        try:
            plan, diffs = await self.agent.require_checkpoints().diff(checkpoint_id)
        except CheckpointError as error:
            raise ConversationError(str(error)) from None
        return diffs, plan.cannot

    async def rewind(self, checkpoint_id: str, restore: str, ask: Ask | None,
                     overwrite: Collection[str] | None = None) -> Rewound:
        """Restore the files ("code"), cut the conversation back ("conversation"), or both.

        Files changed outside the agent are overwritten only after a yes: `overwrite` names those the
        user already agreed to (from the preview); any other is asked about through `ask` (None: no way
        to ask, a no)."""
        from .checkpoints import CheckpointError

        if restore not in RESTORE:
            raise ConversationError(f"restore must be one of {', '.join(RESTORE)}")
        agent = self.agent
        with agent.exclusive("rewind"):  # the state returned is the rewind's, no turn in between
            try:
                result = await agent.rewind(checkpoint_id, restore, self._confirmer(checkpoint_id, ask, overwrite))
            except CheckpointError as error:
                raise ConversationError(str(error)) from None
            transcript = await agent.transcript() if result.conversation else None
            if result.restored:  # after the transcript returned: the front end tells this one its own way
                agent.note("info", "Restored " + ", ".join(f"`{path}`" for path in result.restored) + ".")
            return Rewound(result, transcript, agent.todos(), await self.checkpoints())

    def _confirmer(self, checkpoint_id: str, ask: Ask | None,
                   overwrite: Collection[str] | None) -> Callable[[RewindPlan], Awaitable[bool]]:
        agreed = frozenset(overwrite) if overwrite is not None else frozenset()

        async def confirm(plan: RewindPlan) -> bool:
            unanswered = [f for f in plan.conflicts if f.path not in agreed]
            if not unanswered:
                return True  # the user agreed to overwrite each of them already
            if ask is None:
                return False
            manager = self.agent.require_checkpoints()
            diff = "".join(await asyncio.to_thread(lambda: [manager.diff_text(f.path, f.current, f.target)
                                                            for f in unanswered]))
            if len(diff) > CONFLICT_DIFF_CHARS:
                diff = diff[:CONFLICT_DIFF_CHARS] + f"\n… ({len(diff) - CONFLICT_DIFF_CHARS} more characters)\n"
            request = ApprovalRequest("rewind", diff=diff, checkpoint=checkpoint_id,
                                      paths=tuple(f.path for f in unanswered))
            return (await ask(request)).approved

        return confirm
