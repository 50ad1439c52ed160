"""The one agent this server hosts (through the core's AgentRuntime), and what it needs from the editor.

Nothing heavy stands between the spawn and the `initialize` answer: the
agent is built in the background once it is given (its modules, the store,
the session), and every agent/* request awaits `AgentHost.agent()`. The
anthropic SDK, the slowest import of all, is needed by none of that: it is
imported in a thread shortly after the agent has announced itself (the first
agent/contextUsage), or by the first model call, whichever comes first.

One thing at a time touches the conversation (the Agent's `exclusive()`);
what the agent refuses as busy is answered -32002. Settings changes
reconfigure the running agent (no restart).
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import to_fs_path

from . import protocol
from ..agent import events as ev
from ..agent.approval import ApprovalPolicy
from ..agent.mcp.config import raw_secret_values
from ..agent.runtime import ActiveModel, AgentRuntime
from ..agent.settings import AgentSettings, parse_settings, settings_section
from ..demo.model import NOTICE as DEMO_NOTICE
from .confirm import EditorAsker
from .editor_query import EditorQueryClient, declared_kinds
from .editor_workspace import EditorWorkspace
from .errors import internal, not_initialized
from ..agent.secrets import SECRETS
from .transport import client_request

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

    from ..agent.conversations import Conversations
    from ..agent.loop import Agent
    from ..context.report import ContextReport

log = logging.getLogger(__name__)

HEAVY_MODULE = "agentls.agent.loop"
# After the agent announced itself, the editor's own start-up (other extensions, a burst of didOpen) has
# the CPU first; then the SDK loads in a thread, long before a user has typed a first prompt.
PRELOAD_DELAY = 1.0


def warm_up() -> asyncio.Future[Any]:
    """Import the agent's modules in a thread (done by the agent's build when not given)."""
    return asyncio.get_running_loop().run_in_executor(None, importlib.import_module, HEAVY_MODULE)


MAX_WINDOW_ID = 200  # characters: an id, not a document


@dataclass
class InitOptions:
    api_key: str | None = None
    settings: Any = None
    supports_confirm: bool = False
    supports_events: bool = True
    shows_demo_notice: bool = False  # the client tells its user about the demo model itself
    editor_queries: frozenset[str] = frozenset()  # agent/editorQuery kinds the client answers
    window_id: str | None = None  # the client's lasting name for its window (sessions are remembered per window)


def parse_init_options(raw: Any) -> tuple[InitOptions, list[str]]:
    if raw is None or raw == []:  # Lua clients encode an empty table as []
        return InitOptions(), []
    if not isinstance(raw, dict):
        return InitOptions(), ["initializationOptions must be an object; ignored"]
    problems = []
    key = raw.get("apiKey")
    if key is not None and not isinstance(key, str):
        problems.append("initializationOptions.apiKey must be a string; ignored")  # never the value
        key = None
    flags = {}
    for name, default in (("supportsConfirm", False), ("supportsEvents", True), ("showsDemoNotice", False)):
        value = raw.get(name, default)
        if not isinstance(value, bool):
            problems.append(f"initializationOptions.{name} must be a boolean")
            value = default
        flags[name] = value
    kinds, more = declared_kinds(raw.get("editorQueries"))
    window = raw.get("windowId")
    if window is not None and not (isinstance(window, str) and 0 < len(window) <= MAX_WINDOW_ID):
        problems.append(f"initializationOptions.windowId must be a string of 1–{MAX_WINDOW_ID} characters; ignored")
        window = None
    return InitOptions(key or None, raw.get("settings"), flags["supportsConfirm"], flags["supportsEvents"],
                       flags["showsDemoNotice"], kinds, window), problems + more


class AgentHost:
    def __init__(self, ls: LanguageServer, warming: asyncio.Future[Any] | None = None) -> None:
        self.ls = ls
        self.options = InitOptions()
        self.settings = AgentSettings()
        self.problems: list[str] = []
        self.workspace: EditorWorkspace | None = None
        self.policy: ApprovalPolicy | None = None
        self.asker: EditorAsker | None = None
        self.session_root: Path | None = None
        self.runtime: AgentRuntime | None = None
        self._ready: asyncio.Future[Agent] | None = None
        self._warming = warming
        self._preloading: asyncio.TimerHandle | None = None
        self._started = False  # `initialized` was handled: messages can be shown

    # ---- lifecycle ---------------------------------------------------------------

    def initialize(self, params: types.InitializeParams) -> None:
        if self._ready is not None:
            log.warning("a second initialize is ignored")
            return
        try:
            self._initialize(params)
        except Exception as error:  # noqa: BLE001 - answer initialize anyway; agent/* requests say why
            log.exception("initialize failed")
            self._ready = asyncio.get_running_loop().create_future()
            self._ready.set_exception(error)
            self._ready.exception()  # retrieved: no "never retrieved" warning if nobody asks

    def _initialize(self, params: types.InitializeParams) -> None:
        self.options, problems = parse_init_options(params.initialization_options)
        SECRETS.add(self.options.api_key)
        self.settings, more = parse_settings(self.options.settings)
        self.problems = problems + more
        _keep_secret(self.settings, self.options.settings)
        roots = self._initial_roots(params)
        self.session_root = Path(roots[0])
        self.workspace = EditorWorkspace(self.ls, roots)
        asker = EditorAsker(self.ls, lambda: self.options.supports_confirm, lambda: self.settings.confirm_timeout)
        self.asker = asker  # also asks before a rewind overwrites files changed outside the agent
        self.policy = ApprovalPolicy(asker)
        self.policy.configure(self.settings.approval_modes())  # as on a settings change (and in acp/session.py)
        editor = None
        if self.options.editor_queries:
            editor = EditorQueryClient(self.ls, self.options.editor_queries, lambda: self.settings.diagnostics_wait())
        self.runtime = AgentRuntime(self.workspace, self.policy, session_root=self.session_root,
                                    api_key=self.options.api_key, editor=editor, window=self.options.window_id)
        self.runtime.on_models_changed = self._models_changed
        self._ready = asyncio.ensure_future(self._build())

    async def initialized(self) -> None:
        try:
            await self.agent()
        except JsonRpcException as error:
            self.show(types.MessageType.Error, error.message)
            return
        if self.demo_running and not self.options.shows_demo_notice:
            self.show(types.MessageType.Info, DEMO_NOTICE)
        if self.problems:
            self.show(types.MessageType.Warning, "agentls: " + "; ".join(self.problems))
        self._started = True
        self._tell_model_warning()
        self.notify_context_usage()
        runtime = self.runtime
        if runtime is not None:  # the SDK, once the agent has announced itself (a first call waits for it)
            self._preloading = asyncio.get_running_loop().call_later(PRELOAD_DELAY, runtime.preload)

    async def shutdown(self) -> None:
        if self._preloading is not None:
            self._preloading.cancel()
        if self.runtime is not None:
            await self.runtime.aclose()  # a running turn is cancelled first: its history stays valid

    # ---- the agent -----------------------------------------------------------------

    async def agent(self) -> Agent:
        if self._ready is None:
            raise not_initialized()
        try:
            return await asyncio.shield(self._ready)
        except Exception as error:  # noqa: BLE001 - the same message for every request after a failed start
            raise internal(f"the agent could not start: {type(error).__name__}: {error}") from None

    async def conversations(self) -> Conversations:
        """The core's conversation operations, once the agent stands."""
        await self.agent()
        assert self.runtime is not None
        return self.runtime.conversations

    async def _build(self) -> Agent:
        await (self._warming if self._warming is not None else warm_up())  # only after initialize is answered
        assert self.runtime is not None
        agent = await self.runtime.start(self.settings)
        self.show_session_problems()
        if self.runtime.settings is not self.settings:  # changed while we were building
            await self.runtime.apply(self.settings)
        return agent

    @property
    def demo_running(self) -> bool:
        return self.runtime is not None and self.runtime.demo is not None

    def model_info(self) -> ActiveModel:
        """Which model answers: added to contextUsage and agent/context (docs/protocol.md)."""
        if self.runtime is None:
            return ActiveModel(self.settings.model or "", False)
        return self.runtime.model_info()

    async def settle_models(self, *, listing: bool = False) -> None:
        """Before a turn (or a look at the list: `listing`): a model list being fetched decides the model."""
        if self.runtime is not None:
            await self.runtime.settle_models(listing=listing)

    def _models_changed(self) -> None:
        self._tell_model_warning()
        self.notify_context_usage()

    def _tell_model_warning(self) -> None:
        if self._started and self.runtime is not None:
            for warning in self.runtime.untold_warnings():
                self.show(types.MessageType.Warning, "agentls: " + warning)

    # ---- notifications -----------------------------------------------------------------

    def session_switched(self) -> None:
        """Another session is the window's now: its problems told, the meter follows it."""
        self.show_session_problems()
        self.notify_context_usage()

    def show_session_problems(self) -> None:
        """Damage set aside or an unsaved conversation: told once here, and in the chat at the next turn."""
        agent = self.runtime.agent if self.runtime is not None else None
        problems = agent.session_problems() if agent is not None else []
        if problems:
            self.show(types.MessageType.Warning, "agentls: " + " ".join(problems))

    def show(self, kind: types.MessageType, message: str) -> None:
        self.ls.window_show_message(types.ShowMessageParams(type=kind, message=SECRETS.scrub(message)))

    def notify_context_usage(self, report: ContextReport | None = None) -> None:
        agent = self.runtime.agent if self.runtime is not None else None
        if agent is None:
            return
        report = report if report is not None else agent.context_usage()
        self.ls.protocol.notify(protocol.CONTEXT_USAGE, protocol.context_usage(report, self.model_info()))

    def event_sink(self, turn_id: str, on_tool: Callable[[ev.ToolStart], None] | None = None):
        """Agent events → agent/event (and contextUsage) notifications, written as they happen."""
        notify = self.ls.protocol.notify
        send_events = self.options.supports_events

        def sink(event: ev.AgentEvent) -> None:
            if isinstance(event, ev.ContextUsage):
                self.notify_context_usage(event.report)
                return
            if send_events:
                payload = protocol.event(event, turn_id)
                if isinstance(event, ev.ErrorEvent):
                    payload["message"] = SECRETS.scrub(payload["message"])
                elif isinstance(event, ev.ThinkingDropped):  # it quotes the API's error
                    payload["text"] = SECRETS.scrub(payload["text"])
                notify(protocol.EVENT, payload)
            if on_tool is not None and isinstance(event, ev.ToolStart):
                on_tool(event)

        return sink

    # ---- settings and folders ----------------------------------------------------------

    async def settings_changed(self, payload: Any) -> None:
        section = settings_section(payload)
        if section is None and payload is None:
            section = await self._pull_settings()
        if section is None:
            return  # nothing for us in this payload
        settings, problems = parse_settings(section)
        _keep_secret(settings, section)
        if problems:
            self.show(types.MessageType.Warning, "agentls: " + "; ".join(problems))
        self.settings = settings
        if self.runtime is None or self.runtime.agent is None:
            return  # the build picks the new settings up
        demo_started = await self.runtime.apply(settings)
        if self.policy is not None:
            self.policy.configure(settings.approval_modes())
        if demo_started and not self.options.shows_demo_notice:
            self.show(types.MessageType.Info, DEMO_NOTICE)
        self._tell_model_warning()
        self.notify_context_usage()

    async def _pull_settings(self) -> dict[str, Any] | None:
        """`{settings: null}` means "ask me" (VS Code's pull model)."""
        try:
            workspace = self.ls.client_capabilities.workspace
        except AttributeError:
            workspace = None
        can_pull = workspace is not None and bool(workspace.configuration)
        if not can_pull:
            return None
        try:
            values = await client_request(self.ls.protocol, types.WORKSPACE_CONFIGURATION, types.ConfigurationParams(
                items=[types.ConfigurationItem(section="agentls")]))
        except JsonRpcException:
            return None
        return values[0] if isinstance(values, (list, tuple)) and values and isinstance(values[0], dict) else None

    def folders_changed(self) -> None:
        if self.workspace is None:
            return
        roots = [path for folder in self.ls.workspace.folders.values() if (path := _local_dir(folder.uri))]
        if not roots and self.ls.workspace.root_path:
            roots = [self.ls.workspace.root_path]
        if roots:
            self.workspace.set_roots(roots)

    def _initial_roots(self, params: types.InitializeParams) -> list[str]:
        roots = [path for folder in params.workspace_folders or [] if (path := _local_dir(folder.uri))]
        if not roots and params.root_uri:
            roots = [path] if (path := _local_dir(params.root_uri)) else []
        if not roots and params.root_path and os.path.isdir(params.root_path):
            roots = [params.root_path]
        return roots or [os.getcwd()]  # a single file opened without a folder


def _keep_secret(settings: AgentSettings, raw: Any = None) -> None:
    """MCP env and header values join the API key: scrubbed from every log line and message
    (those of entries that were ignored as malformed too)."""
    for server in settings.mcp_servers:
        for value in server.secret_values():
            SECRETS.add(value)
    if isinstance(raw, dict):
        for value in raw_secret_values(raw.get("mcpServers")):
            SECRETS.add(value)


def _local_dir(uri: str) -> str | None:
    path = to_fs_path(uri)
    return path if path and os.path.isdir(path) else None
