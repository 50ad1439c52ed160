"""Compaction with a fixed head (issue 29): the summary is asked with the conversation's head, and the next
request fixes a new one, which carries the changes held until then. Where the model compacts on the server,
`/compact` with a focus is the API's on-demand compaction (ModelClient.compact), its block put first.

Real agent, real SDK, the mock API.
"""

from __future__ import annotations

import inspect

import pytest
import pytest_asyncio

from agentls.agent import events as ev
from agentls.context.compact import SERVER_SUMMARY_PROMPT
from agentls.mock_api import MockAnthropicServer, Reply, Text, ToolUse
from agentls.mock_api.models import mock_model
from agentls.model import ModelClient
from head_fixtures import AgentMaker, tool_names
from mcp_fixtures import stdio_config

UNKNOWN = "acme-thinker-1"  # bound when it thinks, takes neither system messages nor tool changes (model/binding.py)
COMPACTING = "claude-sonnet-5-5"  # bound; compacts on demand where the Models API says so
# On-demand compaction needs the mock API and the model client of issue 29 (the Models API's `compaction`
# capability, ModelClient.compact); until both are there the test of it waits.
SERVER_COMPACTION = "compaction" in inspect.signature(mock_model).parameters and hasattr(ModelClient, "compact")


@pytest.fixture
def api():
    models = [mock_model(UNKNOWN)]
    if SERVER_COMPACTION:
        models.append(mock_model(COMPACTING, compaction=True))
    with MockAnthropicServer(models=models) as server:
        yield server


@pytest_asyncio.fixture
async def make_agent(api, workspace, data_dir):
    maker = AgentMaker(api, workspace)
    yield maker
    await maker.aclose()


async def test_a_held_tool_change_applies_with_the_head_after_a_compaction(make_agent, api, workspace):
    (workspace / "notes.md").write_text("# Notes\n" + "a line of notes worth summarising\n" * 100)
    api.script(Reply([ToolUse("mcp__test__grow", {})]), Reply([ToolUse("read_file", {"path": "notes.md"})]),
               Reply([Text("read")]))
    agent = await make_agent(UNKNOWN, servers={"test": stdio_config(approval="always")})
    seen: list[ev.AgentEvent] = []
    await agent.run_turn("grow, then read notes.md", seen.append)
    await agent.run_turn("anything new?", seen.append)  # the tool list changed: held on this model
    api.script(Reply([Text("<summary>1. Goal: notes</summary>")]))
    result = await agent.compact("focus on notes")
    assert result.compacted and result.summary == "1. Goal: notes"
    api.script(Reply([Text("now with extra")]))
    await agent.run_turn("and now?", seen.append)
    bodies = api.message_bodies
    held, summary, after = bodies[3], bodies[4], bodies[5]
    assert "mcp__test__extra" not in tool_names(held) and held["tools"] == bodies[0]["tools"]
    # the summary request: the conversation's head still; the focus in its last message
    assert summary["tools"] == held["tools"] and summary["system"] == held["system"]
    assert "focus on notes" in str(summary["messages"][-1])
    # the next request fixes a new head: the held tool is there now
    assert "mcp__test__extra" in tool_names(after) and after["system"] == held["system"]
    changes = [e for e in seen if isinstance(e, ev.ToolsChanged)]
    assert [(e.added, e.delivery) for e in changes] == [(["mcp__test__extra"], "held"),
                                                        (["mcp__test__extra"], "head")]


@pytest.mark.skipif(not SERVER_COMPACTION, reason="needs the Models API's compaction and ModelClient.compact")
async def test_compact_with_a_focus_is_the_apis_compaction_on_a_model_that_offers_it(make_agent, api, workspace):
    (workspace / "notes.md").write_text("# Notes\n" + "a line of notes worth summarising\n" * 400)
    api.script(Reply([ToolUse("read_file", {"path": "notes.md"})]), Reply([Text("read")]),
               Reply([ToolUse("read_file", {"path": "notes.md"})]), Reply([Text("read again")]))
    agent = await make_agent(COMPACTING)
    await agent.run_turn("read notes.md")
    await agent.run_turn("read it again")
    assert agent.engine.config.thinking_bound and agent.engine.config.server_compaction
    result = await agent.compact("focus on notes")
    assert result.compacted
    compaction = api.message_bodies[-1]
    assert compaction["compaction"]["type"] == "summarize"
    # the user's focus inside a whole summary prompt: `instructions` replace the API's own prompt
    instructions = compaction["compaction"]["instructions"]
    assert instructions.startswith(SERVER_SUMMARY_PROMPT) and instructions.endswith("focus on notes")
    assert "<analysis>" not in instructions  # the API keeps what its summarizer writes: no scratch part
    assert compaction["system"] == api.message_bodies[0]["system"]
    assert agent.history()[0]["content"][0]["type"] == "compaction"
    api.script(Reply([Text("after")]))
    await agent.run_turn("and now?")
    first = api.message_bodies[-1]["messages"][0]["content"][0]
    assert first["type"] == "compaction"  # sent back first, as returned
