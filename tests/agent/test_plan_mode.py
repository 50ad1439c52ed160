"""Plan mode (issue 34): read and search only, the plan in the task list, the mode told by an appended message.

Through the real agent and the real SDK against the mock API: in plan mode a write and a shell call are
refused without anyone being asked, reads run, the plan lands in the task list; the model is told once, by a
`role: "system"` message on a model that takes one (else in the next user message), never by a changed
`system`; the mode survives a restart and a compaction; leaving it ("Approve plan") is told the same way.
"""

from __future__ import annotations

import pytest
import pytest_asyncio

from agentls.agent.plan_mode import ACT, PLAN, ModeError
from agentls.mock_api import MockAnthropicServer, Reply, Text, ToolUse
from agentls.mock_api.models import mock_model
from head_fixtures import AgentMaker

BOUND = "claude-sonnet-5-5"  # binds thinking, takes system messages (model/binding.py)
UNKNOWN = "acme-thinker-1"  # takes no system messages: told in the next user message
PLAN_HEADING = "# Agent mode: plan"
ACT_HEADING = "# Agent mode: act"


@pytest.fixture
def api():
    with MockAnthropicServer(models=[mock_model(BOUND), mock_model(UNKNOWN)]) as server:
        yield server


@pytest_asyncio.fixture
async def make_agent(api, workspace, data_dir):
    maker = AgentMaker(api, workspace)
    yield maker
    await maker.aclose()


def never_asked(*_args, **_kwargs):
    raise AssertionError("plan mode asked the user about a call it must refuse")


def results(body: dict) -> list[dict]:
    return [b for m in body["messages"] if m["role"] == "user" and isinstance(m["content"], list)
            for b in m["content"] if b.get("type") == "tool_result"]


def told(body: dict, heading: str) -> list[dict]:
    """The messages of a request that tell the model `heading` (system messages or user text blocks)."""
    return [m for m in body["messages"] if isinstance(m["content"], list)
            and any(b.get("type") == "text" and b.get("text", "").startswith(heading) for b in m["content"])]


async def test_plan_mode_refuses_writes_without_asking_and_the_plan_lands_in_the_task_list(make_agent, api,
                                                                                         workspace):
    (workspace / "app.py").write_text("print('hi')\n")
    plan = [{"content": "Rename the greeting", "status": "pending"}, {"content": "Run the tests", "status": "pending"}]
    api.script(Reply([ToolUse("read_file", {"path": "app.py"}), ToolUse("write_file", {"path": "app.py",
                                                                                         "content": "x"}),
                      ToolUse("run_shell", {"command": "touch made"})]),
               Reply([ToolUse("todo_write", {"todos": plan})]), Reply([Text("The plan is in the task list.")]))
    agent = await make_agent(BOUND, approve=never_asked)
    assert agent.mode == ACT
    assert agent.set_mode(PLAN) and not agent.set_mode(PLAN)
    await agent.run_turn("plan the rename")
    assert (workspace / "app.py").read_text() == "print('hi')\n" and not (workspace / "made").exists()
    read, write, shell = results(api.message_bodies[1])
    assert "print('hi')" in str(read["content"]) and not read.get("is_error")
    for refused in (write, shell):
        assert refused["is_error"] and "plan mode is on" in refused["content"]
    assert [item.content for item in agent.todos()] == ["Rename the greeting", "Run the tests"]
    with pytest.raises(ModeError):
        agent.set_mode("yolo")


async def test_the_mode_is_an_appended_system_message_told_once_and_approval_is_told_too(make_agent, api):
    api.script(*[Reply([Text(t)]) for t in ("a", "b", "c", "d")])
    agent = await make_agent(BOUND)
    await agent.run_turn("one")
    agent.set_mode(PLAN)
    await agent.run_turn("two")
    await agent.run_turn("three")
    agent.set_mode(ACT)  # Approve plan
    await agent.run_turn("go")
    first, second, third, fourth = api.message_bodies
    assert first["system"] == second["system"] == third["system"] == fourth["system"]
    assert PLAN_HEADING not in first["system"] + second["system"]
    assert told(first, PLAN_HEADING) == []
    [message] = told(second, PLAN_HEADING)
    assert message["role"] == "system" and second["messages"][-1] == message  # right after "two"
    assert told(third, PLAN_HEADING) == [message]  # told once
    [approved] = told(fourth, ACT_HEADING)
    assert approved["role"] == "system" and "Carry out the plan" in str(approved)
    assert fourth["messages"][: len(third["messages"])] == third["messages"]  # appended, nothing rewritten


async def test_without_system_messages_the_mode_rides_in_the_next_user_message(make_agent, api):
    api.script(Reply([Text("a")]))
    agent = await make_agent(UNKNOWN)
    agent.set_mode(PLAN)
    await agent.run_turn("one")
    [body] = api.message_bodies
    [message] = told(body, PLAN_HEADING)
    assert message["role"] == "user" and "one" in str(message) and PLAN_HEADING not in body["system"]


async def test_the_mode_survives_a_restart(make_agent, api, workspace):
    api.script(Reply([Text("a")]), Reply([ToolUse("write_file", {"path": "x.txt", "content": "x"})]),
               Reply([Text("refused, as planned")]))
    first = await make_agent(BOUND)
    first.set_mode(PLAN)
    await first.run_turn("one")
    await first.aclose()
    restarted = await make_agent(BOUND, new=False, approve=never_asked)
    assert restarted.mode == PLAN
    await restarted.run_turn("write x.txt")
    assert not (workspace / "x.txt").exists()
    [refused] = results(api.message_bodies[2])
    assert refused["is_error"] and "plan mode is on" in refused["content"]
    assert len(told(api.message_bodies[2], PLAN_HEADING)) == 1  # not told again after the restart


async def test_the_mode_survives_a_compaction_and_is_told_again_when_summarised_away(make_agent, api, workspace):
    (workspace / "notes.md").write_text("# Notes\n" + "a line of notes worth summarising\n" * 100)
    api.script(Reply([ToolUse("read_file", {"path": "notes.md"})]), Reply([Text("read")]),
               Reply([Text("ok")]))
    agent = await make_agent(UNKNOWN)  # told in a user message, which the summary replaces
    agent.set_mode(PLAN)
    await agent.run_turn("read notes.md")
    await agent.run_turn("anything else?")
    api.script(Reply([Text("<summary>1. Goal: notes</summary>")]))
    result = await agent.compact()
    assert result.compacted
    assert agent.mode == PLAN
    api.script(Reply([ToolUse("edit_file", {"path": "notes.md", "old_string": "# Notes", "new_string": "# N"})]),
               Reply([Text("refused")]))
    await agent.run_turn("edit it")
    after = api.message_bodies[4]
    assert len(told(after, PLAN_HEADING)) == 1  # told again: the summary replaced the message that told it
    assert (workspace / "notes.md").read_text().startswith("# Notes\n")
    [refused] = results(api.message_bodies[5])
    assert refused["is_error"] and "plan mode is on" in refused["content"]
