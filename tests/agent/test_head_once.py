"""The head (`system` and `tools`) is built once per conversation where the model needs it unchanged (issue 29).

Through the real agent and the real SDK against the mock API: on a model that binds thinking or takes
mid-conversation system messages the first request's head is sent unchanged, byte for byte, by every
later request — across an AGENTS.md edit, an MCP tool change and a restart — and the change is appended
instead (a `role: "system"` message, `tool_addition` blocks, or held until the next compaction). On a model
without either the head is rebuilt as before.
"""

from __future__ import annotations

import importlib.util

import pytest
import pytest_asyncio

from agentls.agent import events as ev
from agentls.agent.approval import ApprovalPolicy
from agentls.agent.store import open_session
from agentls.mock_api import MockAnthropicServer, Reply, Text, ToolUse
from agentls.mock_api.models import mock_model
from head_fixtures import AgentMaker, tool_names
from mcp_fixtures import stdio_config

BOUND = "claude-sonnet-5-5"  # documented: binds thinking, takes system messages (model/binding.py)
UNBOUND = "claude-sonnet-4-5"  # documented older: neither
TOOL_CHANGES = "claude-opus-5"  # takes system messages and tool changes
UNKNOWN = "acme-thinker-1"  # no documentation: bound when it thinks, no system messages, no tool changes
# The mock API of issue 29 (mock_api/system_messages.py) takes `role: "system"` messages and tool changes as the
# API does; the one before it refuses them, so the tests that send one wait for it.
needs_system_messages = pytest.mark.skipif(importlib.util.find_spec("agentls.mock_api.system_messages") is None,
                                           reason="this mock API refuses role: system messages")
MODELS = [mock_model(BOUND), mock_model(UNBOUND, thinking=("enabled", "disabled")), mock_model(TOOL_CHANGES),
          mock_model(UNKNOWN)]


@pytest.fixture
def api():
    with MockAnthropicServer(models=MODELS) as server:
        yield server


@pytest_asyncio.fixture
async def make_agent(api, workspace, data_dir):
    maker = AgentMaker(api, workspace)
    yield maker
    await maker.aclose()


class Recorder(list):
    def __call__(self, event):
        self.append(event)

    def of(self, cls):
        return [e for e in self if isinstance(e, cls)]


def system_messages(body: dict) -> list[dict]:
    return [m for m in body["messages"] if m["role"] == "system"]


def texts(message: dict) -> str:
    content = message["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


def appended_only(bodies: list[dict]) -> None:
    for before, after in zip(bodies, bodies[1:]):
        assert after["messages"][: len(before["messages"])] == before["messages"]


@needs_system_messages
async def test_an_agents_md_edit_on_a_bound_model_is_a_system_message_and_the_head_stays(make_agent, api, workspace):
    (workspace / "AGENTS.md").write_text("Always answer in French.\n")
    api.script(Reply([Text("un")]), Reply([Text("deux")]), Reply([Text("trois")]))
    agent = await make_agent(BOUND)
    seen = Recorder()
    await agent.run_turn("one", seen)
    (workspace / "AGENTS.md").write_text("Always answer in German, and say why.\n")
    await agent.run_turn("two", seen)
    await agent.run_turn("three", seen)
    bodies = api.message_bodies
    assert len(bodies) == 3
    assert bodies[0]["system"] == bodies[1]["system"] == bodies[2]["system"]
    assert bodies[0]["tools"] == bodies[1]["tools"] == bodies[2]["tools"]
    assert "French" in bodies[0]["system"] and "German" not in bodies[2]["system"]
    assert system_messages(bodies[0]) == []
    # the edit: a system message right after the last user message of the request that follows it
    last = bodies[1]["messages"]
    assert [m["role"] for m in last[-2:]] == ["user", "system"] and texts(last[-2]) == "two"
    assert "Always answer in German, and say why." in texts(last[-1]) and "AGENTS.md" in texts(last[-1])
    assert system_messages(bodies[2]) == system_messages(bodies[1])  # told once
    appended_only(bodies)
    [changed] = seen.of(ev.InstructionsChanged)
    assert (changed.changed, changed.delivery) == (["AGENTS.md"], "appended")
    assert agent.instruction_changes == 0  # no cache break


async def test_on_an_unbound_model_the_system_prompt_changes_as_before(make_agent, api, workspace):
    (workspace / "AGENTS.md").write_text("Always answer in French.\n")
    api.script(Reply([Text("un")]), Reply([Text("zwei")]))
    agent = await make_agent(UNBOUND, thinking="off")
    seen = Recorder()
    await agent.run_turn("one", seen)
    (workspace / "AGENTS.md").write_text("Always answer in German, and say why.\n")
    await agent.run_turn("two", seen)
    first, second = api.message_bodies
    assert "French" in first["system"] and "German" in second["system"] and "French" not in second["system"]
    assert system_messages(second) == []
    [changed] = seen.of(ev.InstructionsChanged)
    assert (changed.changes, changed.changed, changed.delivery) == (1, ["AGENTS.md"], "head")
    assert agent.instruction_changes == 1


@pytest.mark.parametrize("model", [UNKNOWN, pytest.param(BOUND, marks=needs_system_messages)])
async def test_the_head_survives_a_restart(make_agent, api, workspace, model):
    (workspace / "AGENTS.md").write_text("Always answer in French.\n")
    api.script(Reply([Text("un")]), Reply([Text("deux")]))
    first = await make_agent(model)
    await first.run_turn("one")
    await first.aclose()
    (workspace / "AGENTS.md").write_text("Always answer in German, and say why.\n")
    restarted = await make_agent(model, new=False)  # the workspace's last session, as a restarted editor opens it
    await restarted.run_turn("two")
    before, after = api.message_bodies
    assert after["system"] == before["system"] and after["tools"] == before["tools"]
    assert "German" not in after["system"]
    assert after["messages"][: len(before["messages"])] == before["messages"]
    told = system_messages(after) if model == BOUND else [after["messages"][-1]]  # else the next user message
    assert len(told) == 1 and "Always answer in German" in texts(told[0])


async def test_a_new_conversation_builds_a_new_head(make_agent, api, workspace):
    (workspace / "AGENTS.md").write_text("Always answer in French.\n")
    api.script(Reply([Text("un")]), Reply([Text("zwei")]))
    agent = await make_agent(BOUND)
    await agent.run_turn("one")
    (workspace / "AGENTS.md").write_text("Always answer in German, and say why.\n")
    agent.clear(open_session(workspace, new=True))
    await agent.run_turn("two")
    first, second = api.message_bodies
    assert "French" in first["system"] and "German" in second["system"]
    assert system_messages(second) == []


@needs_system_messages
async def test_an_mcp_tool_that_appears_is_a_tool_addition_and_can_be_called(make_agent, api):
    api.script(Reply([ToolUse("mcp__test__grow", {})]), Reply([Text("grown")]),
               Reply([ToolUse("mcp__test__extra", {})]), Reply([Text("used extra")]))
    agent = await make_agent(TOOL_CHANGES, servers={"test": stdio_config(approval="always")})
    seen = Recorder()
    await agent.run_turn("grow", seen)
    await agent.run_turn("use it", seen)
    bodies = api.message_bodies
    assert bodies[0]["tools"] == bodies[1]["tools"] == bodies[2]["tools"] == bodies[3]["tools"]
    assert "mcp__test__extra" not in tool_names(bodies[3])
    [told] = system_messages(bodies[2])
    [addition] = told["content"]
    assert addition["type"] == "tool_addition" and addition["tool"]["type"] == "tool_definition"
    assert addition["tool"]["definition"]["name"] == "mcp__test__extra"
    assert bodies[2]["messages"][-1] is not None and bodies[2]["messages"][-1]["role"] == "system"
    result = next(b for b in bodies[3]["messages"][-1]["content"] if b.get("type") == "tool_result")
    assert "extra here" in str(result["content"])
    appended_only(bodies)
    [changed] = seen.of(ev.ToolsChanged)
    assert (changed.added, changed.delivery) == (["mcp__test__extra"], "appended")
    assert agent.tool_list_changes == 0


async def test_an_mcp_tool_change_is_held_where_the_model_takes_none(make_agent, api, workspace):
    (workspace / "AGENTS.md").write_text("Always answer in French.\n")
    api.script(Reply([ToolUse("mcp__test__grow", {})]), Reply([Text("grown")]), Reply([Text("held")]))
    agent = await make_agent(UNKNOWN, servers={"test": stdio_config(approval="always")})
    seen = Recorder()
    await agent.run_turn("grow", seen)
    (workspace / "AGENTS.md").write_text("Always answer in German, and say why.\n")
    await agent.run_turn("then", seen)
    bodies = api.message_bodies
    assert bodies[0]["tools"] == bodies[2]["tools"] and "mcp__test__extra" not in tool_names(bodies[2])
    assert bodies[0]["system"] == bodies[2]["system"]
    assert all(system_messages(b) == [] for b in bodies)  # this model takes none
    # the instructions: a text block of the next user message, the one no request carried yet
    last = bodies[2]["messages"][-1]
    assert last["role"] == "user" and "Always answer in German" in texts(last) and "then" in texts(last)
    appended_only(bodies)
    [held] = seen.of(ev.ToolsChanged)
    assert (held.added, held.delivery) == (["mcp__test__extra"], "held")


async def test_a_changed_approval_mode_is_told_in_the_conversation_not_the_head(make_agent, api):
    api.script(Reply([Text("a")]), Reply([Text("b")]), Reply([Text("c")]))
    policy = ApprovalPolicy(shell="ask")
    agent = await make_agent(UNKNOWN, approve=policy)
    await agent.run_turn("one")
    policy.set_mode("shell", "always")
    await agent.run_turn("two")
    await agent.run_turn("three")
    first, second, third = api.message_bodies
    assert first["system"] == second["system"] == third["system"]
    assert "Permission settings changed" not in str(first["messages"])
    last = second["messages"][-1]  # this model takes no system message: the user message not yet sent
    assert last["role"] == "user" and "shell commands: allowed without asking" in texts(last)
    assert str(third["messages"]).count("Permission settings changed") == 1  # told once
    appended_only([first, second, third])
