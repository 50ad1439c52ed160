"""Agents on a named model of the mock API's Models list, for the tests of the conversation's head (issue 29)."""

from __future__ import annotations

from agentls.agent.approval import auto_approve
from agentls.agent.loop import Agent
from agentls.agent.mcp.config import parse_servers
from agentls.agent.store import open_session
from agentls.agent.workspace import Workspace
from agentls.context import ContextConfig
from agentls.model.models_api import fetch_catalog
from conftest import settings_for


class AgentMaker:
    """`await maker(model, …)`: an agent on `model` with the endpoint's catalog; `aclose()` closes them all."""

    def __init__(self, api, workspace) -> None:
        self.api, self.workspace = api, workspace
        self.made: list[Agent] = []

    async def __call__(self, model: str, *, new: bool = True, servers: dict | None = None, approve=auto_approve,
                       **extra) -> Agent:
        settings = settings_for(self.api, model=model, **extra)
        settings.catalog = await fetch_catalog(settings)
        configs, problems = parse_servers(servers or {})
        assert problems == []
        agent = Agent(Workspace([self.workspace]), settings, approve=approve, context=ContextConfig(),
                      session=open_session(self.workspace, new=new), mcp_servers=configs)
        self.made.append(agent)
        return agent

    async def aclose(self) -> None:
        for agent in self.made:
            await agent.aclose()


def tool_names(body: dict) -> list[str]:
    """The names of a request's `tools`."""
    return [t["name"] for t in body.get("tools", [])]
