"""Issue 34, item 3: tool search. An SDK-written MCP server listing 300 tools; the real agent and SDK against the mock.

- Where the model takes Anthropic's tool search tool, the first request declares it and defers the 300 schemas
  (`defer_loading`): its `tools` shrink, the mock counts no deferred schema, and a tool the model finds with a search
  is called (the mock refuses a call of a deferred tool nothing loaded).
- Where the endpoint lacks it (`toolSearch: "builtin"`, and the mock's model refuses the server tool), agentls'
  `search_tools` finds a tool and loads its schema as a `tool_addition` on a bound model: every earlier request is
  a prefix of the next (the strict mock refuses anything else), and the tool is called.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import pytest_asyncio

from agentls.agent.mcp.tool_search import SEARCH_TOOLS
from agentls.mock_api import MockAnthropicServer, Reply, Text, ToolSearch, ToolUse
from agentls.mock_api.models import mock_model
from agentls.mock_api.tokens import count_input_tokens
from agentls.mock_api.binding import without_cache_control
from head_fixtures import AgentMaker

ODD = str(Path(__file__).resolve().parent.parent / "mcp_odd_server.py")
BOUND = "claude-sonnet-5-5"  # binds thinking, takes tool changes; listed for tool search (model/tool_search.py)
NO_SEARCH = "claude-opus-5"  # also takes tool changes; its mock endpoint refuses the tool search tool below
TARGET = "mcp__many__tool_00042"
SERVERS = {"many": {"command": sys.executable, "args": [ODD, "many", "300"], "approval": "always"}}


@pytest.fixture
def api():
    with MockAnthropicServer(models=[mock_model(BOUND), mock_model(NO_SEARCH, tool_search=False)]) as server:
        yield server


@pytest_asyncio.fixture
async def make_agent(api, workspace, data_dir):
    maker = AgentMaker(api, workspace)
    yield maker
    await maker.aclose()


def figures(body: dict) -> tuple[int, int, int]:
    """(tools, bytes of `tools` as JSON, input tokens the mock counts for the whole request)."""
    return len(body["tools"]), len(json.dumps(body["tools"])), count_input_tokens(body)


async def test_300_mcp_tools_deferred_to_the_tool_search_tool_and_one_found_and_called(make_agent, api):
    upfront = await make_agent(BOUND, servers=SERVERS, tool_search="off")
    api.script(Reply([Text("ok")]))
    await upfront.run_turn("hello")
    before = figures(api.message_bodies[-1])

    agent = await make_agent(BOUND, servers=SERVERS)
    api.script(Reply([ToolSearch("tool 00042"), ToolUse(TARGET, {})]), Reply([Text("done")]))
    assert (await agent.run_turn("run tool 42")).text == "done"
    first, second = api.message_bodies[-2:]
    after = figures(first)
    print(f"\nfirst request with 300 MCP tools: before {before[0]} tools, {before[1]:,} bytes of tools, "
          f"{before[2]:,} input tokens; after {after[0]} tools, {after[1]:,} bytes of tools "
          f"({sum(1 for t in first['tools'] if t.get('defer_loading'))} deferred), {after[2]:,} input tokens")
    deferred = [t for t in first["tools"] if t.get("defer_loading")]
    assert len(deferred) == 300 and {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"} in [
        without_cache_control(t) for t in first["tools"]]
    assert after[2] < before[2] / 4  # the deferred schemas are not in the prompt

    reply = second["messages"][1]["content"]
    assert [b["type"] for b in reply if b["type"] != "thinking"] == [
        "server_tool_use", "tool_search_tool_result", "tool_use"]
    found = next(b for b in reply if b["type"] == "tool_search_tool_result")["content"]["tool_references"]
    assert found[0] == {"type": "tool_reference", "tool_name": TARGET}
    assert second["messages"][2]["content"][0]["content"] == "tool_00042 ran"
    assert second["tools"] == first["tools"]  # the API expands the reference: `tools` never change

    view = agent.context().tool_search
    assert view is not None and (view.mode, view.offered, view.deferred) == ("native", 0, 300)
    assert view.saved_tokens > 5_000


async def test_a_scripted_call_of_a_deferred_tool_nothing_loaded_is_refused_by_the_mock(make_agent, api):
    agent = await make_agent(BOUND, servers=SERVERS)
    api.script(Reply([ToolUse(TARGET, {})]))
    with pytest.raises(Exception, match="deferred tool"):
        await agent.run_turn("call it blind")


async def test_without_tool_search_on_the_endpoint_search_tools_loads_a_schema_appended_and_it_is_called(
        make_agent, api):
    agent = await make_agent(NO_SEARCH, servers=SERVERS, tool_search="builtin")
    api.script(Reply([ToolUse(SEARCH_TOOLS, {"query": "tool 00042", "limit": 2})]),
               Reply([ToolUse(TARGET, {})]), Reply([Text("done")]))
    assert (await agent.run_turn("run tool 42")).text == "done"
    bodies = api.message_bodies[-3:]
    names = [t["name"] for t in bodies[0]["tools"]]
    assert SEARCH_TOOLS in names and not [n for n in names if n.startswith("mcp__")]
    assert not [t for t in bodies[0]["tools"] if t.get("type", "").startswith("tool_search_tool")]
    print(f"\nfirst request, search_tools fallback: {figures(bodies[0])[0]} tools, {figures(bodies[0])[1]:,} bytes "
          f"of tools, {figures(bodies[0])[2]:,} input tokens")

    found = bodies[1]["messages"][2]["content"][0]["content"]
    assert found.startswith("Found 2 tool(s)") and f"- {TARGET}: One of many." in found
    added = [b for m in bodies[1]["messages"] if m["role"] == "system" for b in m["content"]
             if b["type"] == "tool_addition"]
    assert [b["tool"]["definition"]["name"] for b in added][0] == TARGET and len(added) == 2
    assert bodies[2]["messages"][-1]["content"][0]["content"] == "tool_00042 ran"
    for before, after in zip(bodies, bodies[1:]):  # nothing earlier rewritten: the bound model's prefix holds
        assert without_cache_control(after["tools"]) == without_cache_control(before["tools"])
        assert after["system"] == before["system"] or without_cache_control(after["system"]) == \
            without_cache_control(before["system"])
        assert without_cache_control(after["messages"][:len(before["messages"])]) == \
            without_cache_control(before["messages"])

    view = agent.context().tool_search
    assert view is not None and (view.mode, view.offered, view.deferred, view.loaded) == ("builtin", 2, 298, 2)
