"""MCP servers as tools: the real agent, the SDK-written test server (stdio and HTTP), the local mock API."""

import asyncio
import contextlib
import json
import logging
import os
import subprocess
import sys
import re

import pytest
import pytest_asyncio

from agentls.agent import events as ev
from agentls.agent.approval import ApprovalRequest
from agentls.agent.loop import Agent
from agentls.agent.mcp.config import parse_servers
from agentls.agent.mcp.connection import McpConnection
from agentls.agent.mcp.results import result_text
from agentls.agent.store import open_session
from agentls.agent.workspace import Workspace
from agentls.context import ContextConfig
from agentls.context.structure import request_problems
from agentls.mock_api import Reply, Text, ToolUse
from conftest import UNBOUND_MODEL, settings_for
from mcp_fixtures import HttpServer, stdio_config
from agentls.agent.runtime import ActiveModel
from agentls.lsp import protocol
from forkserver import agentls_command


def wire_status(agent):
    """agent/mcpServers' shape of the servers (the test reads the protocol's names)."""
    return [protocol.mcp_server(status) for status in agent.mcp.status()]


def wire_context(agent):
    """agent/context's shape of the agent's context details."""
    return protocol.context(agent.context(), ActiveModel("", False))


TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
SECRET_ENV = "tok-never-shown-8731"


class Approvals:
    def __init__(self, answer=True):
        self.answer = answer
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request):
        self.asked.append(request)
        return self.answer


class Recorder(list):
    def __call__(self, event):
        self.append(event)

    def of(self, cls):
        return [e for e in self if isinstance(e, cls)]


@pytest_asyncio.fixture
async def make_mcp_agent(mock_api, workspace, data_dir):
    made = []

    def build(servers: dict, approve=None, context=None, **model):
        configs, problems = parse_servers(servers)
        assert problems == []
        agent = Agent(Workspace([workspace]), settings_for(mock_api, **model), approve=approve or Approvals(),
                      context=context or ContextConfig(), session=open_session(workspace, new=True),
                      mcp_servers=configs)
        made.append(agent)
        return agent

    yield build
    for agent in made:
        await agent.aclose()


@pytest.fixture
def http_server():
    server = HttpServer()
    yield server
    server.close()


def results_of(body) -> list[dict]:
    return [b for b in body["messages"][-1]["content"] if b.get("type") == "tool_result"]


def tool_names(body) -> list[str]:
    return [t["name"] for t in body["tools"]]


async def test_stdio_tools_are_offered_namespaced_in_a_stable_order_and_called_with_approval(
        make_mcp_agent, mock_api):
    mock_api.script(Reply([ToolUse("mcp__test__echo", {"text": "hi"})]), Reply([Text("done")]))
    approvals = Approvals()
    agent = make_mcp_agent({"test": stdio_config()}, approve=approvals)
    result = await agent.run_turn("echo hi")
    assert result.text == "done"
    first, second = mock_api.message_bodies
    names = tool_names(first)
    mcp_names = [n for n in names if n.startswith("mcp__")]
    assert mcp_names == sorted(mcp_names) and "mcp__test__echo" in mcp_names
    assert names[: -len(mcp_names)] == ["read_file", "grep_search", "list_files", "edit_file", "write_file",
                                        "run_shell", "todo_write", "task"]  # built-ins first, unchanged
    assert all(TOOL_NAME.match(n) for n in names)
    assert first["tools"] == second["tools"]
    [asked] = approvals.asked
    assert (asked.kind, asked.server, asked.tool) == ("mcp", "test", "echo") and '"hi"' in asked.input
    [answer] = results_of(second)
    assert answer["content"] == "echo: hi" and not answer.get("is_error")
    assert request_problems(second["messages"]) == []


async def test_approval_policy_per_server_and_tool(make_mcp_agent, mock_api):
    mock_api.script(
        Reply([ToolUse("mcp__test__echo", {"text": "a"}), ToolUse("mcp__test__big", {"lines": 2})]),
        Reply([Text("ok")]),
    )
    approvals = Approvals(answer=False)
    agent = make_mcp_agent({"test": stdio_config(approval="always", tools={"big": "ask", "crash": "never"})},
                           approve=approvals)
    await agent.run_turn("go")
    body = mock_api.message_bodies[-1]
    assert "mcp__test__crash" not in tool_names(body)  # never: not offered at all
    echo, big = results_of(body)
    assert echo["content"] == "echo: a"  # always: nobody asked
    assert big.get("is_error") and "did not approve" in big["content"]
    assert [(a.server, a.tool) for a in approvals.asked] == [("test", "big")]


async def test_a_large_result_is_cleared_and_read_back_by_its_ref(make_mcp_agent, mock_api):
    mock_api.script(
        Reply([ToolUse("mcp__test__big", {"lines": 4000}, id="toolu_big")]),
        Reply([ToolUse("mcp__test__echo", {"text": "next"})]),
        Reply([ToolUse("read_file", {"path": "context://toolu_big"})]),
        Reply([Text("read it back")]),
    )
    agent = make_mcp_agent({"test": stdio_config(approval="always")})
    seen = Recorder()
    await agent.run_turn("big", seen)
    placeholders = {p["toolUseId"]: p for p in wire_context(agent)["placeholders"]}
    big = placeholders["toolu_big"]
    assert big["ref"] == "context://toolu_big" and big["layer"] == "truncated" and big["originalChars"] > 100_000
    bodies = mock_api.message_bodies
    first_result = results_of(bodies[1])[0]["content"]
    assert "row 02000" not in first_result and "context://toolu_big" in first_result
    [read_back] = results_of(bodies[3])
    assert "row 00001 of the big result" in read_back["content"] and "row 04000" in read_back["content"]


async def test_a_picture_becomes_a_stored_placeholder(make_mcp_agent, mock_api):
    mock_api.script(Reply([ToolUse("mcp__test__picture", {}, id="toolu_pic")]),
                    Reply([ToolUse("read_file", {"path": "context://toolu_pic/item-2"})]), Reply([Text("ok")]))
    agent = make_mcp_agent({"test": stdio_config(approval="always")})
    await agent.run_turn("picture")
    [placeholder] = results_of(mock_api.message_bodies[1])
    assert "a 1x1 pixel" in placeholder["content"] and "image/png" in placeholder["content"]
    assert "context://toolu_pic/item-2" in placeholder["content"] and "iVBOR" not in placeholder["content"]
    [read_back] = results_of(mock_api.message_bodies[2])
    assert read_back["content"].startswith("data:image/png;base64,iVBOR")


async def test_a_server_killed_mid_call_is_reported_and_the_next_turn_works(make_mcp_agent, mock_api, caplog):
    caplog.set_level(logging.DEBUG)
    mock_api.script(Reply([ToolUse("mcp__test__crash", {})]), Reply([Text("it crashed")]),
                    Reply([ToolUse("mcp__test__env_value", {"name": "TOKEN"})]), Reply([Text("back")]))
    agent = make_mcp_agent({"test": stdio_config(approval="always", env={"TOKEN": SECRET_ENV})})
    seen = Recorder()
    assert (await agent.run_turn("crash it", seen)).text == "it crashed"
    [crashed] = results_of(mock_api.message_bodies[1])
    assert crashed["is_error"]
    assert "MCP server 'test' closed the connection during the call" in crashed["content"]
    assert "about to crash: goodbye" in crashed["content"]  # its stderr explains
    assert seen.of(ev.ToolEnd)[0].is_error
    [status] = wire_status(agent)
    assert status["state"] == "failed" and "closed the connection" in status["error"]
    assert (await agent.run_turn("again")).text == "back"  # the next call started it again
    [value] = results_of(mock_api.message_bodies[3])
    assert value["content"] == "set" and not value.get("is_error")
    assert wire_status(agent)[0]["state"] == "running"
    assert mock_api.message_bodies[0]["tools"] == mock_api.message_bodies[3]["tools"]  # no cache break
    assert agent.tool_list_changes == 0
    shown = repr(wire_status(agent)) + repr(agent.mcp.connections["test"].config) + caplog.text
    assert SECRET_ENV not in shown and status["envKeys"] == ["TOKEN"]


async def test_a_hanging_server_times_out_clearly(make_mcp_agent, mock_api):
    mock_api.script(Reply([ToolUse("mcp__test__hang", {})]), Reply([Text("gave up")]),
                    Reply([ToolUse("mcp__test__echo", {"text": "x"})]), Reply([Text("fine")]))
    agent = make_mcp_agent({"test": stdio_config(approval="always", timeout=1)})
    assert (await agent.run_turn("hang")).text == "gave up"
    [hung] = results_of(mock_api.message_bodies[1])
    assert hung["is_error"] and "did not answer within 1 s" in hung["content"]
    assert (await agent.run_turn("again")).text == "fine"
    assert results_of(mock_api.message_bodies[3])[0]["content"] == "echo: x"


async def test_streamable_http_server_called_killed_and_the_agent_keeps_working(
        make_mcp_agent, mock_api, http_server):
    mock_api.script(Reply([ToolUse("mcp__web__echo", {"text": "over http"})]), Reply([Text("one")]),
                    Reply([ToolUse("mcp__web__crash", {})]), Reply([Text("two")]),
                    Reply([ToolUse("mcp__web__echo", {"text": "gone?"}), ToolUse("read_file", {"path": "notes.md"})]),
                    Reply([Text("three")]))
    approvals = Approvals()
    agent = make_mcp_agent({"web": http_server.config(headers={"Authorization": f"Bearer {SECRET_ENV}"})},
                           approve=approvals)
    assert (await agent.run_turn("echo")).text == "one"
    assert results_of(mock_api.message_bodies[1])[0]["content"] == "echo: over http"
    assert [a.tool for a in approvals.asked] == ["echo"]
    assert (await agent.run_turn("crash")).text == "two"
    [crashed] = results_of(mock_api.message_bodies[3])
    assert crashed["is_error"] and "MCP server 'web'" in crashed["content"]
    assert (await agent.run_turn("more")).text == "three"
    echo, notes = results_of(mock_api.message_bodies[5])
    assert echo["is_error"] and "could not start" in echo["content"]  # the server is gone for good
    assert "The answer is 42." in notes["content"]
    assert SECRET_ENV not in repr(wire_status(agent)) + echo["content"] + crashed["content"]


async def test_a_changed_tool_list_is_one_counted_cache_break_at_a_turn_start(make_mcp_agent, mock_api):
    mock_api.script(Reply([ToolUse("mcp__test__grow", {})]), Reply([ToolUse("mcp__test__echo", {"text": "a"})]),
                    Reply([Text("grown")]),
                    Reply([ToolUse("mcp__test__extra", {})]), Reply([Text("used extra")]),
                    Reply([Text("nothing new")]))
    agent = make_mcp_agent({"test": stdio_config(approval="always")}, model=UNBOUND_MODEL)
    seen = Recorder()
    await agent.run_turn("grow", seen)
    await agent.run_turn("use it", seen)
    await agent.run_turn("again", seen)
    bodies = mock_api.message_bodies
    assert bodies[0]["tools"] == bodies[1]["tools"] == bodies[2]["tools"]  # not mid-turn
    assert "mcp__test__extra" not in tool_names(bodies[2]) and "mcp__test__extra" in tool_names(bodies[3])
    assert bodies[3]["tools"] == bodies[4]["tools"] == bodies[5]["tools"]
    assert results_of(bodies[4])[0]["content"] == "extra here"
    for before, after in zip(bodies, bodies[1:]):  # messages stay append-only across the tool change
        assert after["messages"][: len(before["messages"])] == before["messages"]
    [changed] = seen.of(ev.ToolsChanged)
    assert (changed.changes, changed.added, changed.removed) == (1, ["mcp__test__extra"], [])
    report = wire_context(agent)
    assert report["toolListChanges"] == 1
    [per_server] = report["mcpTools"]
    assert per_server["server"] == "test" and per_server["tools"] == 9 and per_server["tokens"] > 100
    assert report["categories"]["tools"] > per_server["tokens"]


async def test_an_old_mcp_result_is_cleared_by_the_pipeline_and_reads_back(make_mcp_agent, mock_api):
    mock_api.script(
        Reply([ToolUse("mcp__test__big", {"lines": 1000}, id="toolu_old")]),
        Reply([ToolUse("mcp__test__echo", {"text": "one"})]),
        Reply([ToolUse("mcp__test__echo", {"text": "two"})]),
        Reply([ToolUse("read_file", {"path": "context://toolu_old"})]),
        Reply([Text("done")]),
    )
    context = ContextConfig(window=40_000, clear_keep_recent=1, clear_keep_named_turns=0, min_batch_tokens=500)
    agent = make_mcp_agent({"test": stdio_config(approval="always")}, context=context, model=UNBOUND_MODEL)
    seen = Recorder()
    await agent.run_turn("big then more", seen)
    placeholders = {p["toolUseId"]: p for p in wire_context(agent)["placeholders"]}
    assert placeholders["toolu_old"]["layer"] == "cleared"
    assert "toolu_old" in [i for e in seen.of(ev.LayerApplied) for i in e.tool_use_ids]
    final = mock_api.message_bodies[-1]
    old = next(b for m in final["messages"] for b in (m["content"] if isinstance(m["content"], list) else [])
               if b.get("tool_use_id") == "toolu_old")
    assert "row 00500" not in old["content"] and "context://toolu_old" in old["content"]
    [read_back] = results_of(final)
    assert "row 00500 of the big result" in read_back["content"]


async def test_the_published_git_server_from_pypi_works_offline(make_mcp_agent, mock_api, workspace):
    """`mcp-server-git` (a test dependency) over stdio: its tools offered, called, answered."""
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    subprocess.run(["git", "-C", str(workspace), "add", "app.py"], check=True)
    mock_api.script(Reply([ToolUse("mcp__git__git_status", {"repo_path": str(workspace)})]),
                    Reply([Text("status read")]))
    approvals = Approvals()
    agent = make_mcp_agent({"git": {"command": sys.executable, "args": ["-m", "mcp_server_git", "-r", str(workspace)]}},
                           approve=approvals)
    assert (await agent.run_turn("git status?")).text == "status read"
    names = tool_names(mock_api.message_bodies[0])
    assert {"mcp__git__git_status", "mcp__git__git_diff", "mcp__git__git_log"} <= set(names)
    assert [(a.server, a.tool) for a in approvals.asked] == [("git", "git_status")]
    [status] = results_of(mock_api.message_bodies[1])
    assert not status.get("is_error")
    assert "app.py" in status["content"] and "notes.md" in status["content"]  # staged and untracked


def test_repl_mcp_command_lists_the_servers(tmp_path, workspace):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"test": stdio_config(env={"TOKEN": SECRET_ENV}),
                                                 "broken": {"command": "/nonexistent/server"}}}))
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env["AGENTLS_DATA_DIR"] = str(tmp_path / "data")
    done = subprocess.run([*agentls_command(), "repl", "--workspace", str(workspace), "--mcp-config",
                           str(config)], input="/mcp\n/quit\n", capture_output=True, text=True, env=env, timeout=180)
    assert done.returncode == 0, done.stderr
    assert "test [running] stdio" in done.stdout and "(env TOKEN=***)" in done.stdout
    assert "mcp__test__echo" in done.stdout
    assert "broken [failed]" in done.stdout and "could not start" in done.stdout
    assert SECRET_ENV not in done.stdout + done.stderr


async def test_a_server_hanging_at_startup_is_reported_and_the_turn_goes_on(make_mcp_agent, mock_api):
    mock_api.script(Reply([ToolUse("read_file", {"path": "notes.md"})]), Reply([Text("read without it")]))
    silent = {"command": sys.executable, "args": ["-c", "import sys; print('warming up', file=sys.stderr, flush=True); "
                                                       "import time; time.sleep(600)"], "startupTimeout": 1}
    agent = make_mcp_agent({"silent": silent, "test": stdio_config()})
    assert (await agent.run_turn("read notes")).text == "read without it"
    silent_status, test_status = wire_status(agent)
    assert silent_status["state"] == "failed" and "did not start within 1 s" in silent_status["error"]
    assert "warming up" in silent_status["error"]  # its stderr says what it was doing
    assert test_status["state"] == "running"  # the other server started anyway
    assert "mcp__test__echo" in tool_names(mock_api.message_bodies[0])


async def test_a_turn_cancelled_while_a_server_starts_leaves_it_startable(make_mcp_agent, mock_api):
    agent = make_mcp_agent({"test": stdio_config(approval="always")})
    connection = agent.mcp.connections["test"]
    turn = asyncio.ensure_future(agent.run_turn("first"))
    for _ in range(3000):  # until the lazy start is under way
        if connection.state == "starting":
            break
        await asyncio.sleep(0.01)
    assert connection.state == "starting"
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    assert connection.state == "stopped" and mock_api.message_bodies == []
    mock_api.script(Reply([ToolUse("mcp__test__echo", {"text": "after"})]), Reply([Text("ok")]))
    assert (await agent.run_turn("again")).text == "ok"
    assert connection.state == "running" and results_of(mock_api.message_bodies[1])[0]["content"] == "echo: after"


class SlowToClose(McpConnection):
    """The first server it starts hangs at its start and, once let go, closes only when `closed` is set
    (what a busy machine does to a server still starting); the servers after it are the test server as is."""

    def __init__(self, config) -> None:
        super().__init__(config)
        self.opened = 0
        self.hanging = asyncio.Event()
        self.closed = asyncio.Event()

    def _open(self):
        client = super()._open()
        self.opened += 1
        if self.opened > 1:
            return client

        @contextlib.asynccontextmanager
        async def hangs_then_closes_late():
            try:
                async with client:
                    self.hanging.set()
                    await asyncio.Event().wait()  # its start never ends
                    yield client
            finally:
                await self.closed.wait()

        return hangs_then_closes_late()


async def test_a_start_let_go_that_closes_late_leaves_the_next_start_running():
    configs, _ = parse_servers({"test": stdio_config()})
    connection = SlowToClose(configs[0])
    first = asyncio.ensure_future(connection.ensure_started())
    await connection.hanging.wait()
    first.cancel()  # a turn cancelled while its server starts
    with pytest.raises(asyncio.CancelledError):
        await first
    assert connection.state == "stopped"
    await connection.ensure_started()  # the next turn, while the first server is still closing
    assert connection.state == "running"
    connection.closed.set()
    await connection.stopped()  # the first start's task has ended now: it speaks no more for the connection
    assert (connection.state, connection.error) == ("running", "")
    result = await connection.call("echo", {"text": "still"})
    assert result_text(result, "toolu_1", None) == "echo: still" and connection.opened == 2  # not started again
    await connection.stop()
    connection.close_log()
