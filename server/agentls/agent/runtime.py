"""The one agent a front end hosts, built from the user's settings and kept in step with them.

Every front end (the language server, the ACP agent, the terminal) hosts its
conversation through an AgentRuntime, so they agree on what the settings
mean: which model answers (the offline demo model when there is no key and
no endpoint), which session a start resumes, and how a settings change
reaches a running agent without a restart. What runs one at a time and what
is closed when is the Agent's own business (Agent.exclusive, Agent.retire).
"""

from __future__ import annotations

import asyncio
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..model.settings import DEFAULT_MODEL, DEMO_MODEL
from .approval import ApprovalCallback
from .settings import AgentSettings, context_config, model_settings, wants_demo

if TYPE_CHECKING:
    from ..demo.model import DemoModel
    from ..model import ModelSettings
    from .loop import Agent
    from .tools.editor import EditorQueries
    from .workspace import Workspace


@dataclass(frozen=True)
class ModelInfo:
    """Which model answers now (what every view names)."""

    model: str
    demo: bool


class AgentRuntime:
    def __init__(self, workspace: Workspace, approve: ApprovalCallback, *, session_root: Path,
                 api_key: str | None = None, editor: EditorQueries | None = None, new_session: bool = False,
                 session_id: str | None = None) -> None:
        self.workspace = workspace
        self.approve = approve
        self.session_root = session_root
        self.api_key = api_key
        self.editor = editor
        self.new_session = new_session
        self.session_id = session_id
        self.settings = AgentSettings()
        self.demo: DemoModel | None = None
        self.agent: Agent | None = None
        self._lock = asyncio.Lock()
        self._preloading: asyncio.Future[None] | None = None

    async def start(self, settings: AgentSettings) -> Agent:
        """Open the session and build the agent (its SDK import and its session load off the loop)."""
        from .loop import Agent
        from .store import open_session

        async with self._lock:
            self.settings = settings
            model = await self._model_settings(settings)
            session = await asyncio.to_thread(functools.partial(  # never fails: at worst unsaved
                open_session, self.session_root, new=self.new_session, session_id=self.session_id))
            self.agent = await asyncio.to_thread(functools.partial(
                Agent, self.workspace, model, context=context_config(settings, model.model), approve=self.approve,
                session=session, editor=self.editor, mcp_servers=settings.mcp_servers))
            return self.agent

    def preload(self) -> asyncio.Future[None]:
        """Import the model SDK in a thread, so the first turn does not wait for it (a model call that
        comes first waits for the same import, off the event loop)."""
        from ..model.client import sdk_loaded

        loading = asyncio.ensure_future(sdk_loaded())
        loading.add_done_callback(lambda done: done.cancelled() or done.exception())  # a failure shows at the call
        self._preloading = loading  # held until done (the loop keeps only weak references to tasks)
        return loading

    async def apply(self, settings: AgentSettings) -> bool:
        """New settings reach the running agent, no restart; True when the demo model just started."""
        async with self._lock:
            self.settings = settings
            if self.agent is None:
                return False  # start() picks them up
            was_demo = self.demo is not None
            model = await self._model_settings(settings)
            self.agent.reconfigure(model, context_config(settings, model.model), settings.mcp_servers)
            return self.demo is not None and not was_demo

    async def _model_settings(self, settings: AgentSettings) -> ModelSettings:
        """ModelSettings for these settings, starting or retiring the demo model as needed."""
        if wants_demo(settings, self.api_key):
            if self.demo is None:
                from ..demo.model import DemoModel

                self.demo = await DemoModel.start()
            return model_settings(settings, None, self.demo.base_url)
        if self.demo is not None:
            demo, self.demo = self.demo, None
            if self.agent is not None:
                self.agent.retire(demo.close)  # a stream may still be reading from it
            else:
                await demo.close()
        return model_settings(settings, self.api_key)

    def model_info(self) -> ModelInfo:
        if self.agent is not None:
            return ModelInfo(self.agent.model_settings.model, self.demo is not None)
        if wants_demo(self.settings, self.api_key):
            return ModelInfo(DEMO_MODEL, True)
        return ModelInfo(self.settings.model or DEFAULT_MODEL, False)

    async def aclose(self) -> None:
        agent, self.agent = self.agent, None
        if agent is not None:
            await agent.aclose()
        if self.demo is not None:
            await self.demo.close()
            self.demo = None
