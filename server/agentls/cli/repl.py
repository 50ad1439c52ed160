"""The terminal conversation: one prompt loop and one set of slash commands for every terminal front end.

`agentls repl` runs it over the agent in this process (local.py), `agentls
chat` over a spawned language server (lsp_chat.py); both are a Backend, so
the commands and what they print are the same. Reading the keyboard happens
in a thread, so events keep flowing while it waits; Ctrl-C cancels the
running turn, Ctrl-D or /quit leaves.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from typing import Protocol, TextIO

from ..agent.checkpoints.model import Checkpoint, RewindResult
from ..agent.commands import CustomCommand
from ..agent.endpoint_models import ModelsView
from ..agent.errors import AgentError
from ..agent.mcp.status import McpServerStatus
from ..agent.permissions import Rule
from ..agent.plan_mode import PLAN, ModeError, command_mode
from ..agent.runtime import ActiveModel
from ..agent.store.sessions import SessionInfo
from ..agent.todos import TodoItem
from ..agent.transcript import TranscriptEntry
from ..agent.views import ContextDetails, CostDetails
from ..context.pipeline import CompactionResult
from ..context.report import ContextReport
from .lines import parse_rewind, pick_session
from .render import HELP, REWIND_USAGE, Renderer

PLAN_ON = "plan mode: the agent reads and searches only, and writes its plan to the task list (/plan off approves it)"
PLAN_OFF = "plan mode off: the agent acts on the plan (changes still ask as your settings say)"
ASK = "    allow? [y]es / [n]o / [a]lways: "


class Backend(Protocol):
    """What the loop asks of the agent, wherever it runs. Failures raise AgentError (said plainly)."""

    renderer: Renderer

    async def chat(self, prompt: str) -> None: ...  # streams the turn's events to the renderer

    def cancel(self) -> None: ...  # the running turn, if any

    async def compact(self, instructions: str | None) -> CompactionResult: ...

    async def cost(self) -> CostDetails: ...

    async def models(self) -> ModelsView: ...

    async def choose_model(self, model: str) -> list[str]: ...  # what to tell (the choice, warnings)

    async def new_session(self) -> None: ...

    async def sessions(self, query: str) -> list[tuple[SessionInfo, bool]]: ...

    async def resume(self, session_id: str) -> list[TranscriptEntry]: ...

    async def context(self) -> tuple[ContextDetails, ActiveModel]: ...

    async def mcp(self) -> tuple[list[McpServerStatus], int]: ...

    async def checkpoints(self) -> list[Checkpoint]: ...

    async def rewind(self, checkpoint_id: str, restore: str) -> RewindResult: ...

    def status(self) -> tuple[ContextReport | None, ActiveModel | None]: ...  # for the prompt

    async def todos(self) -> list[TodoItem]: ...

    async def set_mode(self, mode: str) -> str: ...  # plan mode on or off (agent/plan_mode.py); the mode now

    async def permissions(self) -> list[Rule]: ...

    async def commands(self) -> list[CustomCommand]: ...  # custom slash commands (.agents/commands/…)

    async def expand_command(self, name: str, arguments: str) -> str: ...  # the prompt a custom command sends


async def read_line(prompt: str) -> str | None:
    """One line from stdin without blocking the event loop; None at end of input."""
    try:
        line = await asyncio.to_thread(input, prompt)
    except EOFError:
        return None
    if not sys.stdin.isatty():
        print(line, flush=True)  # piped input: echo it so the transcript reads like a session
    return line


async def ask_yes_no_always(render: Renderer, reader: TextIO | None = None) -> tuple[bool, bool]:
    """(approved, remember) from the keyboard; anything but y or a is a no. Asked where the
    renderer puts its notes (stderr for `ask`, whose stdout is the answer alone)."""
    reader = reader or sys.stdin
    render.ask(ASK)
    answer = await asyncio.to_thread(reader.readline)
    if not reader.isatty():
        render.note(answer.rstrip("\n"))  # piped input: echo it so the transcript reads like a session
    choice = (answer or "n").strip().lower()[:1]
    return choice in ("y", "a"), choice == "a"


class Repl:
    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.render = backend.renderer
        self.listed: list[tuple[SessionInfo, bool]] = []  # the last /sessions list, for /resume N

    async def run(self, greeting: str) -> int:
        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal.SIGINT, self.backend.cancel)  # Ctrl-C stops the turn
        try:
            self.render.line(greeting, "2")
            while True:
                line = await read_line(self.render.prompt(*self.backend.status()))
                if line is None:
                    self.render.line("")
                    return 0
                line = line.strip()
                if not line:
                    continue
                if line.startswith("/"):
                    if not await self.command(line):
                        return 0
                    continue
                await self.turn(line)
        finally:
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signal.SIGINT)

    async def turn(self, prompt: str) -> None:
        try:
            await self.backend.chat(prompt)
        except asyncio.CancelledError:
            self.render.end_turn()
            self.render.line("(cancelled)", "31")
            return
        except AgentError as error:
            self.render.end_turn()
            self.render.error(str(error))
            return
        self.render.end_turn()

    async def command(self, line: str) -> bool:
        """Run a /command; False means leave."""
        name, _, rest = line.partition(" ")
        rest = rest.strip()
        backend, render = self.backend, self.render
        try:
            if name in ("/quit", "/exit"):
                return False
            if name == "/compact":
                render.compaction(await backend.compact(rest or None))
            elif name == "/cost":
                render.cost(await backend.cost())
            elif name == "/model":
                if rest:
                    for said in await backend.choose_model(rest):
                        render.line(said)
                else:
                    render.models(await backend.models())
            elif name in ("/clear", "/new"):
                await backend.new_session()
                render.line("new conversation (the previous one stays saved: /sessions lists it)")
            elif name == "/sessions":
                self.listed = await backend.sessions(rest)
                render.sessions(self.listed)
            elif name == "/resume":
                if not self.listed:
                    self.listed = await backend.sessions("")
                session_id = pick_session(self.listed, rest)
                if session_id is None:
                    render.error("/resume N (a number from /sessions) or a session id")
                else:
                    entries = await backend.resume(session_id)
                    render.line(f"resumed {session_id}")
                    render.transcript(entries)
            elif name == "/checkpoints":
                render.checkpoints(await backend.checkpoints())
            elif name == "/rewind":
                parsed = parse_rewind(rest, await backend.checkpoints())
                if parsed is None:
                    render.error(REWIND_USAGE)
                else:
                    render.rewind(await backend.rewind(*parsed))
            elif name == "/context":
                render.context(*await backend.context())
            elif name == "/mcp":
                render.mcp(*await backend.mcp())
            elif name in ("/tasks", "/todos"):
                render.todos(await backend.todos())
            elif name == "/plan":
                mode = await backend.set_mode(command_mode(rest))
                render.line(PLAN_ON if mode == PLAN else PLAN_OFF)
            elif name == "/permissions":
                render.permissions(await backend.permissions())
            elif name == "/help":
                render.line(HELP)
                render.commands(await backend.commands())
            elif name[1:] in {c.name for c in await backend.commands()}:
                await self.turn(await backend.expand_command(name[1:], rest))
            else:
                render.error(f"unknown command {name}; /help lists the commands")
        except (AgentError, ModeError) as error:
            render.error(str(error))
        return True
