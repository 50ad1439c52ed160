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
UNBOUND = "acme-plain-1"  # undocumented, without thinking: its head is not fixed (a tool change is a new `tools`)
NO_CHANGES = "claude-haiku-5-5"  # binds thinking, takes no tool changes (model/binding.py)
TARGET = "mcp__many__tool_00042"
SERVERS = {"many": {"command": sys.executable, "args": [ODD, "many", "300"], "approval": "always"}}


@pytest.fixture
def api():
    models = [mock_model(BOUND), mock_model(NO_SEARCH, tool_search=False),
              mock_model(UNBOUND, thinking=("disabled",), thinking_bound=False, system_messages=False,
                         tool_changes=False, tool_search=False),
              mock_model(NO_CHANGES, system_messages=False, tool_changes=False, tool_search=False)]
    with MockAnthropicServer(models=models) as server:
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


async def test_a_loaded_schema_stays_loaded_after_a_restart_and_nothing_is_removed(make_agent, api):
    first = await make_agent(NO_SEARCH, servers=SERVERS, tool_search="builtin")
    api.script(Reply([ToolUse(SEARCH_TOOLS, {"query": TARGET})]), Reply([Text("loaded")]))
    await first.run_turn("find tool 42")
    await first.aclose()
    restarted = await make_agent(NO_SEARCH, new=False, servers=SERVERS, tool_search="builtin")
    api.script(Reply([ToolUse(TARGET, {})]), Reply([Text("done")]))
    assert (await restarted.run_turn("now call it")).text == "done"
    before, after = api.message_bodies[1], api.message_bodies[2]
    assert after["tools"] == before["tools"]
    assert without_cache_control(after["messages"][:len(before["messages"])]) == \
        without_cache_control(before["messages"])
    changes = [b["type"] for m in after["messages"][len(before["messages"]):] if m["role"] == "system"
               for b in m["content"] if b.get("type", "").startswith("tool_")]
    assert changes == []  # told once, before the restart: no removal, no second addition
    assert api.message_bodies[-1]["messages"][-1]["content"][0]["content"] == "tool_00042 ran"


async def test_on_a_head_that_is_not_fixed_a_loaded_schema_is_in_the_next_tools_one_counted_break(make_agent, api):
    agent = await make_agent(UNBOUND, servers=SERVERS, thinking="off")
    api.script(Reply([ToolUse(SEARCH_TOOLS, {"query": TARGET})]), Reply([ToolUse(TARGET, {})]), Reply([Text("ok")]))
    assert (await agent.run_turn("run tool 42")).text == "ok"
    bodies = api.message_bodies[-3:]
    assert [t["name"] for t in bodies[1]["tools"]][-1] == TARGET
    assert TARGET not in [t["name"] for t in bodies[0]["tools"]]
    assert agent.tool_list_changes == 1


async def test_a_fixed_head_without_tool_changes_offers_every_schema(make_agent, api):
    agent = await make_agent(NO_CHANGES, servers=SERVERS, tool_search="builtin")
    api.script(Reply([Text("ok")]))
    await agent.run_turn("hello")
    names = [t["name"] for t in api.message_bodies[-1]["tools"]]
    assert SEARCH_TOOLS not in names and sum(n.startswith("mcp__") for n in names) == 300
    assert agent.context().tool_search.mode == "upfront"
