"""`agentls ask` and `agentls repl`: the agent in this process, through the same runtime as the server.

Without an API key or base URL the runtime starts the offline demo model (a
local Anthropic-compatible server) and the terminal says so.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from .. import credentials
from ..agent.approval import ApprovalDecision, ApprovalPolicy, ApprovalRequest
from ..agent.checkpoints.model import Checkpoint, RewindResult
from ..agent.commands import CommandError, CustomCommand, custom_commands, expand_named
from ..agent.conversations import ConversationError, SessionStoreBusy
from ..agent.endpoint_models import ModelsView, models_view
from ..agent.permissions import Rule
from ..agent.todos import TodoItem
from ..agent.userconfig import config_dir
from ..model.catalog import choose_model
from ..agent.errors import AgentError
from ..agent.mcp.config import read_mcp_json
from ..agent.mcp.status import McpServerStatus
from ..agent.runtime import ActiveModel, AgentRuntime
from ..agent.settings import AgentSettings, parse_settings
from ..agent.store.sessions import SessionInfo
from ..agent.transcript import TranscriptEntry
from ..agent.views import ContextDetails, CostDetails
from ..agent.visible import visible
from ..agent.workspace import Workspace
from ..context.pipeline import CompactionResult
from ..context.report import ContextReport
from .render import Renderer
from .repl import Repl, ask_yes_no_always

DEMO_NOTICE = "[agentls] no ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL: using the offline demo model"
# How messages name what the user can change here: the command line's options.
TERMINAL_SETTING_NAMES = {"model": "--model", "compact_model": "compactModel", "thinking": "thinking",
                          "max_tokens": "maxTokens", "context_window": "contextWindow"}


def terminal_asker(renderer: Renderer, approve_all: bool = False, reader: TextIO | None = None):
    """Approvals on the terminal: what is asked is shown (escaped), then y / n / always (its rules printed)."""
    async def ask(request: ApprovalRequest) -> ApprovalDecision:
        renderer.approval(request)
        if approve_all and request.kind == "rules":  # --yes approves the agent's calls, not a repository's rules
            renderer.note("    not accepted (--yes does not accept rules; run without it to review them)", "2")
            return ApprovalDecision(False)
        if approve_all:
            renderer.note("    approved (--yes)", "2")
            return ApprovalDecision(True)
        approved, remember = await ask_yes_no_always(renderer, reader)
        if approved and remember:
            renderer.rules_added(request.rules)
        return ApprovalDecision(approved, remember)

    return ask


def workspace_folder(arg: str) -> Path:
    path = Path(arg).expanduser().resolve()
    if not path.is_dir():
        raise SystemExit(f"agentls: workspace {arg!r} is not a folder")
    return path


def terminal_settings(args: argparse.Namespace) -> AgentSettings:
    """The command line's options in the settings format every front end reads (problems on stderr)."""
    raw: dict[str, Any] = {}
    if getattr(args, "model", None):
        raw["model"] = args.model
    if getattr(args, "base_url", None):
        raw["baseUrl"] = args.base_url
    if getattr(args, "mcp_config", None):
        try:
            raw["mcpServers"] = read_mcp_json(args.mcp_config)
        except (OSError, ValueError) as error:
            raise SystemExit(f"agentls: --mcp-config: {visible(str(error))}") from None
    settings, problems = parse_settings(raw)
    for problem in problems:
        print(f"agentls: {visible(problem)}", file=sys.stderr)
    return settings


class LocalBackend:
    """The Repl's backend over an in-process agent."""

    def __init__(self, runtime: AgentRuntime, renderer: Renderer, policy: ApprovalPolicy) -> None:
        self.runtime = runtime
        self.renderer = renderer
        self.policy = policy
        self._turn: asyncio.Future[Any] | None = None

    @property
    def agent(self):
        assert self.runtime.agent is not None, "start the runtime first"
        return self.runtime.agent

    async def chat(self, prompt: str) -> None:
        await self.runtime.settle_models()  # a list being fetched decides the model (runtime.settle_models)
        self._tell_warnings()
        self._turn = asyncio.ensure_future(self.agent.run_turn(prompt, self.renderer))
        try:
            await self._turn
        finally:
            self._turn = None

    def cancel(self) -> None:
        if self._turn is not None:
            self._turn.cancel()

    async def compact(self, instructions: str | None) -> CompactionResult:
        return await self.agent.compact(instructions, self.renderer)

    async def cost(self) -> CostDetails:
        return CostDetails(self.agent.cost(), self.agent.cache_report())

    async def models(self) -> ModelsView:
        self.runtime.models.refresh()
        await self.runtime.settle_models(listing=True)
        active = self.runtime.model_info()
        return models_view(self.runtime.models.models, active.model, self.runtime.settings.model or "",
                           active.demo, self.agent.model_settings.prices)

    async def choose_model(self, model: str) -> list[str]:
        if self.runtime.demo is not None:
            return ["the offline demo model answers (no API key): set ANTHROPIC_API_KEY to choose a model"]
        picked = choose_model(model, self.runtime.models.models, "/model")  # warns when it is not offered
        await self.runtime.apply(replace(self.runtime.settings, model=picked.model))
        self.runtime.untold_warnings()  # the runtime's own note of the same choice: said above
        return [*([picked.warning] if picked.warning else []), f"model: {picked.model} (from the next message)"]

    def _tell_warnings(self) -> None:
        for warning in self.runtime.untold_warnings():
            self.renderer.note(f"[agentls] {warning}", "33")

    async def new_session(self) -> None:
        try:
            await self.runtime.conversations.new()
        except SessionStoreBusy as error:  # refused after a bounded wait: this conversation goes on
            raise AgentError(f"cannot start a new conversation: {error}") from None

    async def sessions(self, query: str) -> list[tuple[SessionInfo, bool]]:
        listed = await self.runtime.conversations.sessions(query)
        return [(info, info.id == listed.current) for info in listed.sessions]

    async def resume(self, session_id: str) -> list[TranscriptEntry]:
        try:
            return (await self.runtime.conversations.resume(session_id)).transcript
        except (ConversationError, SessionStoreBusy) as error:
            raise AgentError(f"cannot resume: {error}") from None

    async def context(self) -> tuple[ContextDetails, ActiveModel]:
        return self.agent.context(), self.runtime.model_info()

    async def checkpoints(self) -> list[Checkpoint]:
        return await self.runtime.conversations.checkpoints()

    async def rewind(self, checkpoint_id: str, restore: str) -> RewindResult:
        try:  # files changed outside the agent are asked about here, before they are overwritten
            rewound = await self.runtime.conversations.rewind(checkpoint_id, restore, terminal_asker(self.renderer))
        except ConversationError as error:
            raise AgentError(f"cannot rewind: {error}") from None
        return rewound.result

    async def mcp(self) -> tuple[list[McpServerStatus], int]:
        await self.agent.mcp.refresh(retry_failed=True)
        return self.agent.mcp.status(), self.agent.tool_list_changes

    def status(self) -> tuple[ContextReport | None, ActiveModel | None]:
        if self.runtime.agent is None:
            return None, None
        return self.agent.context_usage(), self.runtime.model_info()

    async def todos(self) -> list[TodoItem]:
        return list(self.agent.todos())

    async def set_mode(self, mode: str) -> str:
        self.agent.set_mode(mode)
        return self.agent.mode

    async def permissions(self) -> list[Rule]:
        await asyncio.to_thread(self.policy.rules.load_workspace, list(self.agent.workspace.roots))
        return self.policy.rules.rules()

    async def commands(self) -> list[CustomCommand]:
        return await asyncio.to_thread(custom_commands, list(self.agent.workspace.roots), config_dir())

    async def expand_command(self, name: str, arguments: str) -> str:
        try:
            return await asyncio.to_thread(expand_named, list(self.agent.workspace.roots), config_dir(), name,
                                           arguments)
        except CommandError as error:
            raise AgentError(str(error)) from None


async def _start(args: argparse.Namespace, renderer: Renderer) -> LocalBackend:
    workspace = workspace_folder(args.workspace)
    settings = terminal_settings(args)
    policy = ApprovalPolicy(terminal_asker(renderer, args.yes))
    runtime = AgentRuntime(Workspace([workspace]), policy, session_root=workspace, new_session=args.new,
                           setting_names=TERMINAL_SETTING_NAMES)
    await runtime.start(settings)
    await runtime.settle_models()  # the terminal shows its prompt with the endpoint's model (runtime.settle_models)
    if runtime.demo is not None:
        print(DEMO_NOTICE, file=sys.stderr, flush=True)
    for warning in runtime.untold_warnings():  # e.g. a --model the endpoint does not offer
        print(f"[agentls] {visible(warning)}", file=sys.stderr, flush=True)
    return LocalBackend(runtime, renderer, policy)


async def _ask(args: argparse.Namespace) -> int:
    renderer = Renderer(sys.stdout, notes=sys.stderr)  # stdout: the answer alone, ready to pipe
    backend = await _start(args, renderer)
    try:
        await backend.chat(args.prompt)
        renderer.end_turn()
        print()
        return 0
    except AgentError as error:
        print(f"\nagentls: {visible(str(error))}", file=sys.stderr)
        return 1
    finally:
        await backend.runtime.aclose()


async def _repl(args: argparse.Namespace) -> int:
    backend = await _start(args, Renderer())
    session = backend.agent.session.id if backend.agent.session is not None else "unsaved"
    try:
        return await Repl(backend).run(f"agentls — {backend.runtime.session_root} — session {session}; "
                                       "/help for commands, /quit to leave")
    finally:
        await backend.runtime.aclose()


def run_ask(args: argparse.Namespace) -> int:
    credentials.take_from_environment()  # the agent's shell commands are our children
    return asyncio.run(_ask(args))


def run_repl(args: argparse.Namespace) -> int:
    credentials.take_from_environment()
    return asyncio.run(_repl(args))
