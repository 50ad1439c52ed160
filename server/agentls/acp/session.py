"""One ACP session: the core's AgentRuntime in the client's folders, with the client's files,
terminal and permission prompts, streaming its events as session/update.

The ACP session id is the store's session id, so session/list, session/load and
`agentls sessions` name the same conversations. A prompt runs as a task of its
own: session/cancel cancels it (the core leaves a valid history: a tool call
cut short gets a result saying so), and the prompt then answers `cancelled`.
One prompt or command at a time per session, as the Agent's `exclusive()` rule.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import RequestError

from ..agent.approval import ApprovalPolicy
from ..agent.commands import CommandError, custom_commands, expand_named
from ..agent.conversations import SessionStoreBusy
from ..agent.errors import AgentBusy, AgentError, AgentInputError
from ..agent.runtime import AgentRuntime
from ..agent.settings import AgentSettings
from ..agent.store.session import title_of
from ..agent.userconfig import config_dir
from ..agent.plan_mode import ACT, PLAN, ModeError, command_mode
from ..context.images import ImageError
from . import commands, modes, protocol
from .client_fs import ClientWorkspace
from .client_terminal import ClientTerminal
from .permissions import PermissionAsker
from .settings import read_settings, with_client_servers
from .stream import UpdateStream

if TYPE_CHECKING:
    from ..agent.loop import Agent

log = logging.getLogger(__name__)

PLAN_NOTES = {PLAN: "Plan mode is on: the agent reads and searches only, and writes its plan to the task list. "
                    "`/plan off` approves the plan and lets it act.\n",
              ACT: "Plan mode is off: the agent acts on the plan (changes still ask as your settings say).\n"}
BUSY = -32600  # JSON-RPC "invalid request": ACP defines no busy code (its -32002 means "not found")
DEMO_NOTICE = ("no API key was found, so the offline demo model answers: it reads, lists and searches files, and "
               "runs commands and edits files after you approve them. To use a real model, give the agent "
               "ANTHROPIC_API_KEY (the `env` of its entry in your editor's agent settings; see docs/acp.md).")


class AcpSession:
    def __init__(self, client: Any, offers: protocol.ClientOffers, roots: Sequence[Path], settings: AgentSettings,
                 *, session_id: str | None = None) -> None:
        self.id = ""
        self.settings = settings
        self.workspace = ClientWorkspace(roots, client, reads=offers.read_files, writes=offers.write_files)
        self.stream = UpdateStream(client, offers, lambda: self.runtime.agent, self.workspace)
        self.policy = ApprovalPolicy(PermissionAsker(client, self.stream, lambda: self.settings.confirm_timeout))
        self.policy.configure(settings.approval_modes())
        self.policy.on_approved = self.stream.approved
        shell = ClientTerminal(client, lambda: self.id or None, self.stream.terminal) if offers.terminal else None
        self.runtime = AgentRuntime(self.workspace, self.policy, session_root=Path(roots[0]),
                                    new_session=session_id is None, session_id=session_id, shell=shell,
                                    busy_store_fails=True)
        self.notes: list[str] = []  # told at the start of the next prompt's answer
        self.commands = commands.commands()  # as last offered (available_commands_update)
        self._task: asyncio.Future[Any] | None = None
        self._demo_told = False  # the offline demo notice (once per conversation)

    @classmethod
    async def open(cls, client: Any, offers: protocol.ClientOffers, roots: Sequence[Path], client_servers: Any,
                   *, session_id: str | None = None) -> AcpSession:
        """A new session (session_id None) or a stored one; RequestError when it cannot be opened: a stored
        session of another folder is not found, as in the language server (sessions belong to their
        workspace), and a session database another process keeps locked answers busy after a bounded wait."""
        from ..agent.store import StoreBusy, StoreError

        settings, problems = await asyncio.to_thread(read_settings, Path(roots[0]))
        shaped, skipped = protocol.mcp_servers(client_servers)
        servers, more = with_client_servers(settings.mcp_servers, shaped)
        session = cls(client, offers, roots, dataclasses.replace(settings, mcp_servers=servers), session_id=session_id)
        try:
            agent = await session.runtime.start(session.settings)
        except StoreBusy as error:
            await session.runtime.aclose()
            raise RequestError(BUSY, str(error)) from None
        except StoreError as error:
            await session.runtime.aclose()
            raise RequestError(-32002, f"Session not found or not available: {error}") from None
        except BaseException:  # cancelled (the client left) or failed: nothing it started stays behind
            await asyncio.shield(session.runtime.aclose())
            raise
        assert agent.session is not None  # the runtime always opens one (at worst unsaved)
        session.id = session.workspace.session_id = session.stream.session_id = agent.session.id
        session.notes += [f"settings: {problem}" for problem in problems + skipped + more]
        for note in session.notes + agent.session_problems():  # the core says the latter in the next turn
            log.warning("session %s: %s", session.id, note)
        return session

    @property
    def agent(self) -> Agent:
        assert self.runtime.agent is not None, "opened by AcpSession.open"
        return self.runtime.agent

    def shown(self, path: Path) -> str:
        real = Path(path).resolve()
        return self.workspace.display(real) if self.workspace.root_of(real) is not None else str(path)

    # ---- what the client asks ------------------------------------------------------------

    async def announce(self) -> None:
        """The commands this session offers, its task list and its figures (after session/new, load or resume)."""
        await self._offer_commands(force=True)
        if self.agent.todos():
            await self.stream.send(protocol.plan((item.content, item.status) for item in self.agent.todos()))
        await self.stream.usage(force=True)

    async def _offer_commands(self, force: bool = False) -> None:
        """The built-in and custom commands; an update only when they changed (a command file added,
        edited or removed), so a prompt's `/name` is read against what the client shows."""
        found = await asyncio.to_thread(custom_commands, list(self.workspace.roots), config_dir())
        offered = commands.commands(found)
        if force or offered != self.commands:
            self.commands = offered
            await self.stream.send(protocol.available_commands(
                (command.name, command.description, command.hint) for command in offered))

    async def prompt(self, blocks: Sequence[Any]) -> protocol.StopReason:
        """Run a turn (or a slash command); the stop reason."""
        if self._task is not None or self.agent.busy:
            raise RequestError(BUSY, "A prompt is already running in this session; cancel it or wait")
        try:
            given = protocol.prompt_input(blocks, self.shown)
            self.agent.check_images(given.images)  # refused before anything runs: nothing is added
        except (ImageError, AgentInputError) as error:
            raise RequestError.invalid_params({"prompt": str(error)}) from None
        if not given.text.strip() and not given.attachments and not given.images:
            raise RequestError.invalid_params({"prompt": "the prompt has no text"})
        await self.runtime.settle_models()  # a model list being fetched decides the model (runtime.settle_models)
        notes, self.notes = self.notes + given.notes + self.runtime.untold_warnings(), []
        if self.runtime.demo is not None and not self._demo_told and not self.agent.history():
            # Once per conversation, not per process: a client that starts the agent for every prompt
            # (acpx) loads a conversation that has begun, and its replies are labelled as the demo's anyway.
            notes.insert(0, DEMO_NOTICE)
        self._demo_told = self._demo_told or self.runtime.demo is not None
        if notes:
            await self.stream.note("\n".join(f"[{note}]" for note in notes))
        await self._offer_commands()
        command = protocol.command_line(given.text, (c.name for c in self.commands))
        custom = command is not None and any(c.custom and c.name == command[0] for c in self.commands)
        text = given.text
        if command is not None and custom:
            try:
                text = await asyncio.to_thread(expand_named, list(self.workspace.roots), config_dir(), *command)
            except CommandError as error:
                raise RequestError.invalid_params({"prompt": str(error)}) from None
        if (command is None or custom) and not self.agent.history() and given.text.strip():
            await self.stream.send(protocol.session_title(title_of(given.text)))
        work: Awaitable[Any] = (self._command(*command) if command is not None and not custom
                                and not given.everything
                                else self.agent.run_turn(text, self.stream, given.everything))
        return await self._run(work)

    def cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _run(self, work: Awaitable[Any]) -> protocol.StopReason:
        task = self._task = asyncio.ensure_future(work)
        try:
            await asyncio.wait({task})
        except asyncio.CancelledError:  # the request itself was cancelled ($/cancel_request, shutdown)
            task.cancel()
            await asyncio.wait({task})
            raise
        finally:
            self._task = None
            await self.stream.end(cancelled=task.cancelled())
        if task.cancelled():
            return "cancelled"
        error = task.exception()
        if isinstance(error, AgentInputError):
            raise RequestError.invalid_params({"prompt": str(error)})
        if isinstance(error, AgentBusy):
            raise RequestError(BUSY, str(error))
        if isinstance(error, AgentError):
            raise RequestError(-32603, self.stream.scrub(str(error)))
        if error is not None:
            raise error
        result = task.result()
        return protocol.stop_reason(getattr(result, "stop_reason", "end_turn"))

    async def _command(self, name: str, argument: str) -> None:
        agent = self.agent
        if name == "compact":
            result = await agent.compact(argument or None, self.stream)
            if not result.compacted or self.stream.offers.compaction:  # else the stream's note gave the figures
                await self.stream.note(commands.compaction_text(result))
        elif name == "cost":
            await self.stream.note(commands.cost_text(agent.cost(), agent.cache_report()))
        elif name == "context":
            await self.stream.note(commands.context_text(agent.context(), self.runtime.model_info()))
        elif name == "new":
            await self._new_conversation()
        elif name == "plan":
            try:
                await self.set_mode(command_mode(argument), announce=True)
            except ModeError as error:
                await self.stream.note(f"{error}\n")
        await self.stream.usage()

    async def set_mode(self, mode: str, announce: bool = False) -> None:
        """Plan mode on or off (ModeError for a mode there is not); `announce`: a switch the client did not ask
        for (the `/plan` command) is sent as a current_mode_update."""
        if self.agent.set_mode(mode) and announce:
            await self.stream.send(modes.mode_update(mode))
        if announce:
            await self.stream.note(PLAN_NOTES[mode])

    async def _new_conversation(self) -> None:
        had_tasks, planning = bool(self.agent.todos()), self.agent.mode != ACT
        try:
            session_id = await self.runtime.conversations.new()
        except SessionStoreBusy as error:  # refused after a bounded wait: this conversation goes on
            await self.stream.note(f"No new conversation: {error}. This one goes on.")
            return
        if had_tasks:
            await self.stream.send(protocol.plan(()))  # a new conversation has no task list
        if planning:
            await self.stream.send(modes.mode_update(ACT))  # and acts until plan mode is turned on again
        await self.stream.note(f"New conversation (saved as {session_id}); the previous one stays in the "
                               "session list.")
        await self.stream.usage(force=True)

    async def aclose(self) -> None:
        self.cancel()
        await self.runtime.aclose()  # a running turn is cancelled first: its history stays valid
