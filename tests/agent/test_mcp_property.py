"""Property: MCP tools coming and going never break the append-only property between batches.

Random conversations against the real agent, the local mock API and the
SDK-written test server over HTTP, whose tool list grows and shrinks
(`grow`/`shrink`) while large results push the context layers to rewrite.
Between two consecutive requests, either the messages of the first are an
exact prefix of the second, or a batch (layer rewrite) was announced for the
second; the tool list changes only at the first request of a turn, and each
change is counted once.
"""

import asyncio
import os

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentls.agent import events as ev
from agentls.agent.approval import auto_approve
from agentls.agent.loop import Agent
from agentls.agent.mcp.config import parse_servers
from agentls.agent.workspace import Workspace
from agentls.context import ContextConfig
from agentls.context.structure import request_problems
from agentls.demo.brain import demo_reply
from agentls.mock_api import MockAnthropicServer, Reply, Text, ToolUse
from conftest import UNBOUND_MODEL, settings_for
from mcp_fixtures import HttpServer

EXAMPLES = int(os.environ.get("AGENTLS_MCP_PROPERTY_EXAMPLES", "20"))

step = st.one_of(
    st.just(("mcp__web__echo", {"text": "hi"})),
    st.builds(lambda n: ("mcp__web__big", {"lines": n}), st.integers(50, 1500)),
    st.just(("mcp__web__grow", {})),
    st.just(("mcp__web__shrink", {})),
    st.just(("read_file", {"path": "notes.md"})),
)
turn = st.lists(step, min_size=0, max_size=4)
# Always tried, whatever is generated: a tool list that grows and shrinks between turns, and results big
# enough for the layers to rewrite (a run of 20 random conversations has drawn neither change).
BOTH_BREAKS = [[("mcp__web__grow", {})], [("mcp__web__big", {"lines": 1500}), ("mcp__web__big", {"lines": 1500})],
               [("mcp__web__shrink", {}), ("mcp__web__big", {"lines": 1500})], [("read_file", {"path": "notes.md"})]]


@pytest.fixture(scope="module")
def model_api():
    with MockAnthropicServer(responder=demo_reply) as server:
        yield server


@pytest.fixture(scope="module")
def web_server():
    server = HttpServer()
    yield server
    server.close()


async def converse(model_api, web_server, workspace, turns) -> tuple[int, int]:
    servers, _ = parse_servers({"web": web_server.config(approval="always")})
    context = ContextConfig(window=30_000, clear_keep_recent=1, min_batch_tokens=300)
    agent = Agent(Workspace([workspace]), settings_for(model_api, model=UNBOUND_MODEL), approve=auto_approve,
                  context=context, mcp_servers=servers)
    start = len(model_api.message_bodies)
    batch_before: set[int] = set()  # request indexes (in this conversation) a batch was applied to
    turn_starts: set[int] = set()

    def sink(event) -> None:
        if isinstance(event, ev.LayerApplied):  # announced once the request carrying it was answered
            batch_before.add(len(model_api.message_bodies) - start - 1)
        elif isinstance(event, ev.CompactionFinished):  # before the request carrying the summary
            batch_before.add(len(model_api.message_bodies) - start)

    try:
        for steps in turns:
            model_api.script(*[Reply([ToolUse(name, args)]) for name, args in steps], Reply([Text("ok")]))
            turn_starts.add(len(model_api.message_bodies) - start)
            await agent.run_turn("go", sink)
        assert model_api.pending == 0
        bodies = model_api.message_bodies[start:]
        changes = 0
        for index in range(1, len(bodies)):
            before, after = bodies[index - 1], bodies[index]
            assert request_problems(after["messages"]) == []
            if before["tools"] != after["tools"]:
                assert index in turn_starts, "the tool list changed in the middle of a turn"
                changes += 1
            if index not in batch_before:
                assert after["messages"][: len(before["messages"])] == before["messages"], "not append-only"
        assert changes == agent.tool_list_changes
        return changes, len(batch_before)
    finally:
        await agent.aclose()


def test_tool_list_changes_never_break_append_only_between_batches(model_api, web_server, tmp_path_factory):
    covered = {"tool changes": 0, "batches": 0}

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(turns=st.lists(turn, min_size=1, max_size=5))
    @example(turns=BOTH_BREAKS)
    def conversations(turns):
        workspace = tmp_path_factory.mktemp("ws")
        (workspace / "notes.md").write_text("# Notes\nThe answer is 42.\n")
        changes, batches = asyncio.run(converse(model_api, web_server, workspace, turns))
        covered["tool changes"] += changes
        covered["batches"] += batches

    conversations()
    print(f"covered over {EXAMPLES} conversations: {covered}")
    assert covered["tool changes"] > 0 and covered["batches"] > 0, covered  # both kinds of break were exercised
