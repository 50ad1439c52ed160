"""Issue 19, findings 3 and 6: what agentls takes from an MCP server, and what a remembered approval is worth.

The real agent, the local mock API and SDK-written MCP servers (tests/mcp_odd_server.py for the
misbehaving ones, tests/mcp_test_server.py for the well-behaved one).
"""

from __future__ import annotations

import asyncio
import io
import sys
from pathlib import Path

import pytest_asyncio

from agentls.agent.approval import ApprovalDecision, ApprovalPolicy
from agentls.agent.loop import Agent
from agentls.agent.mcp.config import parse_servers
from agentls.agent.runtime import ActiveModel
from agentls.agent.store import open_session
from agentls.agent.workspace import Workspace
from agentls.cli.render import Renderer
from agentls.context import ContextConfig
from agentls.mock_api import Reply, Text, ToolUse
from conftest import settings_for
from mcp_fixtures import stdio_config

ODD = str(Path(__file__).resolve().parent.parent / "mcp_odd_server.py")


def odd(*args: str, **extra) -> dict:
    return {"command": sys.executable, "args": [ODD, *args], **extra}


def configs(servers: dict):
    parsed, problems = parse_servers(servers)
    assert problems == []
    return parsed


@pytest_asyncio.fixture
async def agent_with(mock_api, workspace, data_dir):
    made = []

    def build(servers: dict, approve=None, context=None, **model):
        agent = Agent(Workspace([workspace]), settings_for(mock_api, **model),
                      session=open_session(workspace, new=True), approve=approve or ApprovalPolicy(None),
                      context=context or ContextConfig(), mcp_servers=configs(servers))
        made.append(agent)
        return agent

    yield build
    for agent in made:
        await agent.aclose()


def tool_names(body) -> list[str]:
    return [t["name"] for t in body["tools"]]


async def test_servers_over_the_tool_and_schema_limits_fail_by_name_and_the_turn_goes_on(agent_with, mock_api):
    agent = agent_with({"many": odd("many", "1001"), "wide": odd("wide", "2000"),
                        "test": stdio_config(approval="always")})
    mock_api.script(Reply([ToolUse("mcp__test__echo", {"text": "still here"})]), Reply([Text("done")]))
    assert (await agent.run_turn("go")).text == "done"
    names = tool_names(mock_api.message_bodies[0])
    assert "mcp__test__echo" in names and not [n for n in names if n.startswith(("mcp__many__", "mcp__wide__"))]
    status = {s.name: s for s in agent.mcp.status()}
    assert status["many"].state == "failed" and status["many"].tools == ()
    assert "MCP server 'many' lists 1,001 tools, more than the 1,000" in status["many"].error
    assert status["wide"].state == "failed" and status["wide"].tools == ()
    assert "MCP server 'wide' offers the tool 'wide' with an input schema of" in status["wide"].error
    assert "more than the 20,000" in status["wide"].error
    assert status["test"].state == "running"
    assert mock_api.message_bodies[-1]["messages"][-1]["content"][0]["content"] == "echo: still here"

    # /context: a server whose tool definitions take over a tenth of the window is pointed out (when tool search
    # is off: else their schemas are deferred, test_tool_search.py).
    small = agent_with({"test": stdio_config(approval="always")}, context=ContextConfig(window=3_000),
                       tool_search="off")
    mock_api.script(Reply([Text("ok")]))
    await small.run_turn("hello")
    shown = io.StringIO()
    Renderer(shown).context(small.context(), ActiveModel("m", False))
    [per_server] = small.context().mcp_tools
    assert per_server.tokens > 300
    assert f"MCP server 'test': its tools take {per_server.tokens:,} tokens" in shown.getvalue()
    quiet = io.StringIO()
    Renderer(quiet).context(agent.context(), ActiveModel("m", False))
    assert "its tools take" not in quiet.getvalue()


class Remembering:
    """The person at the terminal: approves and asks to remember the answer."""

    def __init__(self) -> None:
        self.asked: list = []

    async def __call__(self, request):
        self.asked.append(request)
        return ApprovalDecision(True, remember=True)


async def test_a_remembered_approval_is_tied_to_the_servers_whole_configuration(agent_with, mock_api):
    person = Remembering()
    agent = agent_with({"test": stdio_config()}, approve=ApprovalPolicy(person))
    for n in range(2):
        mock_api.script(Reply([ToolUse("mcp__test__echo", {"text": f"call {n}"})]), Reply([Text("ok")]))
        await agent.run_turn(f"echo {n}")
    assert len(person.asked) == 1  # remembered for this server

    # The same name now points at another program: the remembered answer does not carry over.
    agent.reconfigure(mcp_servers=configs({"test": stdio_config(args=[stdio_config()["args"][0], "stdio", "v2"])}))
    mock_api.script(Reply([ToolUse("mcp__test__echo", {"text": "call 2"})]), Reply([Text("ok")]))
    await agent.run_turn("echo 2")
    assert len(person.asked) == 2, "a remembered approval survived pointing the server at another program"
    assert person.asked[0].config != person.asked[1].config


class Pending:
    """An approval nobody answers yet."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()
        self.release = asyncio.Event()
        self.cancelled = False

    async def __call__(self, request):
        self.asked.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        return True


async def test_removing_a_server_withdraws_its_pending_approval_and_never_starts_it_again(agent_with, mock_api):
    pending = Pending()
    agent = agent_with({"test": stdio_config()}, approve=pending)
    mock_api.script(Reply([ToolUse("mcp__test__echo", {"text": "too late"})]), Reply([Text("it was removed")]))
    turn = asyncio.ensure_future(agent.run_turn("echo"))
    await asyncio.wait_for(pending.asked.wait(), 120)
    removed = agent.mcp.connections["test"]
    agent.reconfigure(mcp_servers=())  # the user removes the server while the question is on screen
    await asyncio.sleep(0.5)
    pending.release.set()  # (had the question stayed, the answer would come now)
    assert (await asyncio.wait_for(turn, 120)).text == "it was removed"
    [result] = mock_api.message_bodies[-1]["messages"][-1]["content"]
    assert result.get("is_error") and "removed from the settings" in result["content"], result["content"]
    assert pending.cancelled, "the pending approval was not withdrawn"
    await agent.aclose()
    assert removed.state != "running" and not removed.running, "a removed server was started again"
