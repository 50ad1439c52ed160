"""The one agent a front end hosts, built from the user's settings and kept in step with them.

Every front end (the language server, the ACP agent, the terminal) hosts its
conversation through an AgentRuntime, so they agree on what the settings
mean: which model answers (the endpoint's own list decides, endpoint_models.py;
the offline demo model when there is no key and no endpoint), which session a
start resumes, and how a settings change or a newly fetched model list reaches
a running agent without a restart. What is done to the conversation (new,
resume, fork, rewind, rename, delete) is its `conversations`
(conversations.py). What runs one at a time and what is closed when is the
Agent's own business (Agent.exclusive, Agent.retire).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..model.settings import DEFAULT_MODEL, DEMO_MODEL
from .approval import ApprovalCallback, ApprovalPolicy
from .conversations import Conversations
from .endpoint_models import EndpointModels
from .settings import AgentSettings, context_config, model_settings, wants_demo

if TYPE_CHECKING:
    from ..demo.model import DemoModel
    from ..model import ModelSettings
    from .editor_queries import EditorQueries
    from .loop import Agent
    from .shell_runner import ShellRunner
    from .workspace import Workspace


@dataclass(frozen=True)
class ActiveModel:
    """Which model answers now (what every view names), and its own window when known."""

    model: str
    demo: bool
    model_window: int | None = None  # the model's maximum (the working window may be smaller)


class AgentRuntime:
    def __init__(self, workspace: Workspace, approve: ApprovalCallback, *, session_root: Path,
                 api_key: str | None = None, editor: EditorQueries | None = None, new_session: bool = False,
                 session_id: str | None = None, setting_names: dict[str, str] | None = None,
                 shell: ShellRunner | None = None, busy_store_fails: bool = False, window: str | None = None) -> None:
        self.workspace = workspace
        self.approve = approve
        self.session_root = session_root
        self.api_key = api_key
        self.editor = editor
        self.new_session = new_session
        self.session_id = session_id
        # A session database another process keeps locked: after the bounded wait, start() raises StoreBusy
        # (a client that asked for this session can ask again) instead of starting in an unsaved copy.
        self.busy_store_fails = busy_store_fails
        self.shell = shell  # where commands run (None: in this process)
        self.window = window  # the client's name for its window: the session it had open is remembered per window
        self.settings = AgentSettings()
        self.demo: DemoModel | None = None
        self.agent: Agent | None = None
        # New, resume, fork, rewind…: the front ends' one way to change the conversation (once started).
        self.conversations = Conversations(lambda: self.agent, session_root,
                                           approve if isinstance(approve, ApprovalPolicy) else None, window=window)
        # Told when a fetched model list changed the model, window or thinking (warnings to show).
        self.on_models_changed: Callable[[], None] | None = None
        self._setting_names = setting_names
        self._models: EndpointModels | None = None
        self._lock = asyncio.Lock()
        self._background: set[asyncio.Future[None]] = set()
        self._applying: asyncio.Future[None] | None = None  # a fetched list reaching the agent (settle_models)

    @property
    def models(self) -> EndpointModels:
        """The endpoint's models (made on first use: the list is fetched with the SDK)."""
        if self._models is None:
            self._models = EndpointModels(self._list_arrived, self._setting_names)
        return self._models

    async def start(self, settings: AgentSettings) -> Agent:
        """Open the session and build the agent (its SDK import and its session load off the loop)."""
        from .loop import Agent
        from .store import open_session

        async with self._lock:
            self.settings = settings
            self._configure_policy(settings)
            # The agent is built without the endpoint's list: a start, and its meter, need neither the list nor
            # the SDK. The list is fetched once the agent stands (the SDK imported in a thread): fetched during
            # the session's load, the SDK's import took the interpreter's lock from it for seconds (a resumed
            # 5,000-message session was ready 2.1 s after an empty one instead of 0.3 s). It decides the model
            # as soon as it arrives (_apply_list reconfigures the agent) and before the first turn
            # (settle_models).
            model = await self._model_settings(settings, fetch=False)
            try:
                session = await asyncio.to_thread(functools.partial(  # at worst unsaved, unless busy_store_fails
                    open_session, self.session_root, new=self.new_session, session_id=self.session_id,
                    raise_busy=self.busy_store_fails, window=self.window))
                self.agent = await asyncio.to_thread(functools.partial(
                    Agent, self.workspace, model, context=context_config(settings, self.models.info),
                    approve=self.approve, session=session, editor=self.editor, mcp_servers=settings.mcp_servers,
                    shell=self.shell))
            finally:
                self.models.fetch()  # nothing to fetch for the demo model
            return self.agent

    def preload(self) -> asyncio.Future[None]:
        """Import the model SDK in a thread, so the first turn does not wait for it (a model call that
        comes first waits for the same import, off the event loop)."""
        from ..model.client import sdk_loaded

        loading = asyncio.ensure_future(sdk_loaded())
        loading.add_done_callback(lambda done: done.cancelled() or done.exception())  # a failure shows at the call
        self._background.add(loading)  # held until done (the loop keeps only weak references to tasks)
        loading.add_done_callback(self._background.discard)
        return loading

    async def apply(self, settings: AgentSettings) -> bool:
        """New settings reach the running agent, no restart; True when the demo model just started."""
        async with self._lock:
            self.settings = settings
            if self.agent is None:
                return False  # start() picks them up
            self._configure_policy(settings)
            was_demo = self.demo is not None
            self._reconfigure(await self._model_settings(settings))
            return self.demo is not None and not was_demo

    async def settle_models(self, *, listing: bool = False) -> None:
        """Before a turn: a model list being fetched (first start, a new endpoint or key) is waited for and
        applied, so the turn uses a model the endpoint offers. When the list decides the model (none is
        configured) or is what was asked for (`listing`: /model, the picker), until the fetch ends: a
        guess from the offline table would be a model this endpoint may not have (a 404), and a clock
        bound would make the answer depend on how busy the machine is; the fetch's own connect and read
        timeouts bound it. Otherwise (a configured model) at most CATALOG_WAIT."""
        if self._models is not None and self._models.fetching():
            from ..model.client import sdk_loaded
            from .endpoint_models import CATALOG_WAIT

            # The fetch imports the SDK first (local work the turn needs anyway, slow on a loaded machine):
            # the wait is for the endpoint's answer, not for the import.
            await sdk_loaded()
            await self._models.settle(None if listing or not self.settings.model else CATALOG_WAIT)
            await self._apply_list()
        elif self._applying is not None and not self._applying.done():
            await asyncio.shield(self._applying)  # a list that just arrived: the agent follows it first
        # else nothing to wait for: no await, the turn starts at once

    def untold_warnings(self) -> list[str]:
        """What the user must hear about the model choice, each warning once."""
        return self._models.untold_warnings() if self._models is not None else []

    def _list_arrived(self) -> None:
        task = asyncio.ensure_future(self._apply_list())
        self._applying = task
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _apply_list(self) -> None:
        """A fetched list: the model, window and thinking follow it (no restart)."""
        async with self._lock:
            if self.agent is None:
                return  # start() reads the list itself
            self._reconfigure(await self._model_settings(self.settings))
        if self.on_models_changed is not None:
            self.on_models_changed()

    def _reconfigure(self, model: ModelSettings) -> None:
        assert self.agent is not None
        self.agent.reconfigure(model, context_config(self.settings, self.models.info), self.settings.mcp_servers)

    def _configure_policy(self, settings: AgentSettings) -> None:
        """The user's permission rules and approval modes reach the policy every front end asks through."""
        if isinstance(self.approve, ApprovalPolicy):
            self.approve.configure(settings.approval_modes())
            self.approve.rules.set_user(settings.permissions)

    async def _model_settings(self, settings: AgentSettings, *, fetch: bool = True) -> ModelSettings:
        """ModelSettings for these settings, starting or retiring the demo model as needed (`fetch`: the
        endpoint's list is fetched now, else by `self.models.fetch()`)."""
        if wants_demo(settings, self.api_key):
            if self.demo is None:
                from ..demo.model import DemoModel

                self.demo = await DemoModel.start()
            return self.models.resolve(settings.model, model_settings(settings, None, self.demo.base_url), demo=True)
        if self.demo is not None:
            demo, self.demo = self.demo, None
            if self.agent is not None:
                self.agent.retire(demo.close)  # a stream may still be reading from it
            else:
                await demo.close()
        resolved = self.models.resolve(settings.model, model_settings(settings, self.api_key), demo=False)
        if fetch:
            self.models.fetch()
        return resolved

    def model_info(self) -> ActiveModel:
        info = self._models.info if self._models is not None else None
        window = info.max_input_tokens if info is not None else None
        if self.agent is not None:
            return ActiveModel(self.agent.model_settings.model, self.demo is not None, window)
        if wants_demo(self.settings, self.api_key):
            return ActiveModel(DEMO_MODEL, True)
        return ActiveModel(self.settings.model or DEFAULT_MODEL, False, window)

    async def aclose(self) -> None:
        agent, self.agent = self.agent, None
        if agent is not None:
            await agent.aclose()
        if self.demo is not None:
            await self.demo.close()
            self.demo = None
        if self._models is not None:
            await self._models.aclose()
