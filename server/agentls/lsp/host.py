"""The one agent this server hosts, and what it needs from the editor.

The agent is built in the background after `initialize` (its modules pull
in the anthropic SDK, slow to import: the import starts in a thread as soon
as the process does), so the editor gets its initialize answer at once;
every agent/* request awaits `AgentHost.agent()`.

One thing at a time touches the conversation: a turn, a compaction or a
clear holds `exclusive()`; anything else asked meanwhile is refused with
-32002. Settings changes reconfigure the running agent (no restart);
clients and the demo model they replace are closed once nothing runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Iterator

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import to_fs_path

from ..agent import events as ev
from ..agent.approval import ApprovalPolicy
from ..model.settings import DEFAULT_MODEL, DEMO_MODEL
from .confirm import EditorAsker
from .endpoint_models import EndpointModels
from .demo import NOTICE as DEMO_NOTICE
from .demo import DemoModel
from .editor_query import EditorQueryClient, declared_kinds
from .editor_workspace import EditorWorkspace
from .errors import internal, not_initialized, turn_running
from .redact import SECRETS
from .settings import AgentSettings, context_config, model_settings, parse_settings, settings_section, wants_demo
from .transport import client_request

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

    from ..agent.loop import Agent

log = logging.getLogger(__name__)

EVENT = "agent/event"
CONTEXT_USAGE = "agent/contextUsage"
HEAVY_MODULE = "agentls.agent.loop"


def warm_up() -> "asyncio.Future[Any]":
    """Import the agent (and the anthropic SDK) in a thread while the LSP handshake runs."""
    return asyncio.get_running_loop().run_in_executor(None, importlib.import_module, HEAVY_MODULE)


@dataclass
class InitOptions:
    api_key: str | None = None
    settings: Any = None
    supports_confirm: bool = False
    supports_events: bool = True
    shows_demo_notice: bool = False  # the client tells its user about the demo model itself
    editor_queries: frozenset[str] = frozenset()  # agent/editorQuery kinds the client answers


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
    return InitOptions(key or None, raw.get("settings"), flags["supportsConfirm"], flags["supportsEvents"],
                       flags["showsDemoNotice"], kinds), problems + more


class AgentHost:
    def __init__(self, ls: "LanguageServer", warming: "asyncio.Future[Any] | None" = None) -> None:
        self.ls = ls
        self.options = InitOptions()
        self.settings = AgentSettings()
        self.problems: list[str] = []
        self.workspace: EditorWorkspace | None = None
        self.policy: ApprovalPolicy | None = None
        self.session_root: Path | None = None
        self.demo: DemoModel | None = None
        self._agent: "Agent | None" = None
        self._ready: "asyncio.Future[Agent] | None" = None
        self._warming = warming
        self._busy: str | None = None
        self._busy_task: asyncio.Task[Any] | None = None
        self._settings_lock = asyncio.Lock()
        self._retired: list[Callable[[], Awaitable[Any]]] = []
        self._background: set[asyncio.Future[Any]] = set()
        self._started = False  # `initialized` was handled: messages can be shown
        self._models: EndpointModels | None = None  # made with the agent (it imports the SDK)

    @property
    def models(self) -> EndpointModels:
        if self._models is None:
            self._models = EndpointModels(lambda: self._schedule(self._catalog_arrived()))
        return self._models

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
        _keep_secret(self.settings)
        roots = self._initial_roots(params)
        self.session_root = roots[0]
        self.workspace = EditorWorkspace(self.ls, roots)
        asker = EditorAsker(self.ls, lambda: self.options.supports_confirm, lambda: self.settings.confirm_timeout)
        self.policy = ApprovalPolicy(asker, **self.settings.approval_modes())
        self._ready = asyncio.ensure_future(self._build())

    async def initialized(self) -> None:
        try:
            await self.agent()
        except JsonRpcException as error:
            self.show(types.MessageType.Error, error.message)
            return
        if self.demo is not None and not self.options.shows_demo_notice:
            self.show(types.MessageType.Info, DEMO_NOTICE)
        if self.problems:
            self.show(types.MessageType.Warning, "agentls: " + "; ".join(self.problems))
        self._started = True
        self._tell_model_warning()
        self.notify_context_usage()

    async def shutdown(self) -> None:
        task = self._busy_task
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()  # the turn ends with a valid history before its client is closed
            await asyncio.wait([task], timeout=5)
        agent, self._agent = self._agent, None
        if agent is not None:
            await agent.aclose()
        if self.demo is not None:
            await self.demo.close()
            self.demo = None
        await self._close_retired()
        if self._models is not None:
            await self._models.aclose()

    # ---- the agent -----------------------------------------------------------------

    async def agent(self) -> "Agent":
        if self._ready is None:
            raise not_initialized()
        try:
            return await asyncio.shield(self._ready)
        except Exception as error:  # noqa: BLE001 - the same message for every request after a failed start
            raise internal(f"the agent could not start: {type(error).__name__}: {error}") from None

    async def _build(self) -> "Agent":
        if self._warming is not None:
            await self._warming
        from ..agent.loop import Agent
        from ..agent.store import open_session

        async with self._settings_lock:
            settings = self.settings
            model = await self._model_settings()
            if self.models.fetching():  # the first list: a model configured or not, it decides which answers
                await self.models.settle()
                model = await self._model_settings()
        session = await asyncio.to_thread(open_session, self.session_root)  # never fails: at worst unsaved
        editor = None
        if self.options.editor_queries:
            editor = EditorQueryClient(self.ls, self.options.editor_queries, lambda: self.settings.diagnostics_wait())
        self._agent = await asyncio.to_thread(functools.partial(
            Agent, self.workspace, model, context=context_config(settings, self.models.info), approve=self.policy,
            session=session,
            editor=editor, mcp_servers=settings.mcp_servers))
        self.show_session_problems()
        if self.settings is not settings:  # changed while we were building
            async with self._settings_lock:
                model = await self._model_settings()
                self._agent.reconfigure(model, context_config(self.settings, self.models.info),
                                        self.settings.mcp_servers)
        return self._agent

    async def _model_settings(self):
        """ModelSettings for the current settings, starting or retiring the demo model as needed."""
        if wants_demo(self.settings, self.options.api_key):
            if self.demo is None:
                self.demo = await DemoModel.start()
            return self.models.resolve(self.settings.model, model_settings(self.settings, None, self.demo.base_url),
                                       demo=True)
        if self.demo is not None:
            self._retire(self.demo.close)
            self.demo = None
        return self.models.resolve(self.settings.model, model_settings(self.settings, self.options.api_key),
                                   demo=False)

    async def settle_models(self) -> None:
        """Before a turn: a list being fetched (first start, new endpoint or key) is waited for, at
        most CATALOG_WAIT, and applied, so the turn uses a model the endpoint offers."""
        if self._models is None or not self._models.fetching():
            return  # nothing to wait for: no await, the turn starts at once
        await self._models.settle()
        await self._catalog_arrived()

    async def _catalog_arrived(self) -> None:
        """A fetched list: the model, window and thinking follow it (no restart)."""
        async with self._settings_lock:
            if self._agent is None:
                return  # the build reads the list itself
            self._apply(await self._model_settings())
        self._tell_model_warning()
        self.notify_context_usage()

    def _apply(self, model) -> None:
        """Reconfigure the running agent for `model` (under the settings lock)."""
        assert self._agent is not None
        old_client = self._agent.client
        self._agent.reconfigure(model, context_config(self.settings, self.models.info), self.settings.mcp_servers)
        if self._agent.client is not old_client:
            self._retire(old_client.aclose)

    def _tell_model_warning(self) -> None:
        if self._started and self._models is not None:
            for warning in self._models.untold_warnings():
                self.show(types.MessageType.Warning, "agentls: " + warning)

    def model_info(self) -> dict[str, Any]:
        """Which model answers and its own window: added to contextUsage and agent/context (docs/protocol.md)."""
        if self._agent is not None:
            model = self._agent.model_settings.model
        elif wants_demo(self.settings, self.options.api_key):
            model = DEMO_MODEL
        else:
            model = self.settings.model or DEFAULT_MODEL
        info = self._models.info if self._models is not None else None
        return {"model": model, "demo": self.demo is not None,
                "modelWindow": info.max_input_tokens if info is not None else None}

    @contextlib.contextmanager
    def exclusive(self, what: str) -> Iterator[None]:
        """Claim the conversation (synchronously: check and claim cannot interleave)."""
        if self._busy == "turn":
            raise turn_running()
        if self._busy is not None:
            raise turn_running(f"a {self._busy} is running; wait for it to end")
        self._busy, self._busy_task = what, asyncio.current_task()
        try:
            yield
        finally:
            self._busy, self._busy_task = None, None
            self._schedule(self._close_retired())

    # ---- notifications -----------------------------------------------------------------

    def show_session_problems(self) -> None:
        """Damage set aside or an unsaved conversation: told once here, and in the chat at the next turn."""
        problems = self._agent.session_problems() if self._agent is not None else []
        if problems:
            self.show(types.MessageType.Warning, "agentls: " + " ".join(problems))

    def show(self, kind: types.MessageType, message: str) -> None:
        self.ls.window_show_message(types.ShowMessageParams(type=kind, message=SECRETS.scrub(message)))

    def notify_context_usage(self, payload: dict[str, Any] | None = None) -> None:
        if self._agent is None:
            return
        usage = payload if payload is not None else self._agent.context_usage()
        self.ls.protocol.notify(CONTEXT_USAGE, {**usage, **self.model_info()})

    def event_sink(self, turn_id: str, on_tool: Callable[[ev.ToolStart], None] | None = None):
        """Agent events → agent/event (and contextUsage) notifications, written as they happen."""
        notify = self.ls.protocol.notify
        send_events = self.options.supports_events

        def sink(event: ev.AgentEvent) -> None:
            if isinstance(event, ev.ContextUsage):
                self.notify_context_usage(event.payload)
                return
            if send_events:
                payload = event.wire(turn_id)
                if isinstance(event, ev.ErrorEvent):
                    payload["message"] = SECRETS.scrub(payload["message"])
                notify(EVENT, payload)
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
        _keep_secret(settings)
        if problems:
            self.show(types.MessageType.Warning, "agentls: " + "; ".join(problems))
        async with self._settings_lock:
            self.settings = settings
            if self._agent is None:
                return  # the build picks the new settings up
            was_demo = self.demo is not None
            self._apply(await self._model_settings())
            if self.policy is not None:
                self.policy.configure(settings.approval_modes())
            if self.demo is not None and not was_demo and not self.options.shows_demo_notice:
                self.show(types.MessageType.Info, DEMO_NOTICE)
        self._tell_model_warning()
        self.notify_context_usage()

    async def _pull_settings(self) -> dict[str, Any] | None:
        """`{settings: null}` means "ask me" (VS Code's pull model)."""
        try:
            can_pull = bool(self.ls.client_capabilities.workspace.configuration)
        except AttributeError:
            can_pull = False
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

    # ---- housekeeping ---------------------------------------------------------------------

    def _retire(self, close: Callable[[], Awaitable[Any]]) -> None:
        self._retired.append(close)
        self._schedule(self._close_retired())

    async def _close_retired(self) -> None:
        if self._busy is not None or (self._agent is not None and self._agent.busy):
            return  # a stream may still use them
        closers, self._retired = self._retired, []
        for close in closers:
            try:
                await close()
            except Exception:  # noqa: BLE001 - closing is best effort
                log.debug("closing a retired client failed", exc_info=True)

    def _schedule(self, coroutine: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)


def _keep_secret(settings: AgentSettings) -> None:
    """MCP env and header values join the API key: scrubbed from every log line and message."""
    for server in settings.mcp_servers:
        for value in server.secret_values():
            SECRETS.add(value)


def _local_dir(uri: str) -> str | None:
    path = to_fs_path(uri)
    return path if path and os.path.isdir(path) else None
