"""Subagents (issue 34 item 1) through the real agent and SDK against the mock API: the `task` tool.

Children run side by side up to the documented limit, each with its own history; a child's
failure is its call's error result, never the parent's; its costs are named in the parent's.
"""

from __future__ import annotations

import asyncio

from agentls.agent import events as ev
from agentls.agent.subagents.tool import PARALLEL_LIMIT
from agentls.mock_api import Fault, Reply, Text, ToolUse


def task(description: str, prompt: str, **extra) -> ToolUse:
    return ToolUse("task", {"description": description, "prompt": prompt, **extra})


def results(body: dict) -> list[dict]:
    last = body["messages"][-1]
    return [b for b in last["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]


async def test_more_tasks_than_the_limit_run_at_most_the_limit_at_once(make_agent, mock_api):
    count = PARALLEL_LIMIT + 2
    mock_api.script(Reply([task(f"look {i}", f"CHILD-{i}: look") for i in range(count)]),
                    Reply([Text("all done")]))
    for i in range(count):  # slow answers: the children overlap for as long as the limit lets them
        mock_api.script_for(f"CHILD-{i}:", Reply([Text(f"answer {i}")], chunk_delay=0.05))
    agent = make_agent()
    result = await agent.run_turn("explore")
    assert result.text == "all done"
    assert agent.subagents.most == PARALLEL_LIMIT
    answers = results(mock_api.message_bodies[-1])
    assert [a["content"].split("\n\n")[0] for a in answers] == [f"answer {i}" for i in range(count)]
    assert not any(a.get("is_error") for a in answers)


async def test_a_failing_child_is_an_error_result_and_the_parent_goes_on(make_agent, mock_api):
    mock_api.script(Reply([task("good", "GOOD: look"), task("bad", "BAD: look")]), Reply([Text("one failed")]))
    mock_api.script_for("GOOD:", Reply([Text("found it")]))
    mock_api.script_for("BAD:", *[Fault.http_status(400, message="bad request for the child")] * 1)
    agent = make_agent()
    events: list[ev.AgentEvent] = []
    result = await agent.run_turn("explore", on_event=events.append)
    assert result.text == "one failed"
    good, bad = results(mock_api.message_bodies[-1])
    assert not good.get("is_error") and good["content"].startswith("found it")
    assert bad["is_error"] and "bad request for the child" in bad["content"]
    finished = {e.name: e for e in events if isinstance(e, ev.SubagentFinished)}
    assert not finished["good"].is_error and finished["bad"].is_error


async def test_cancel_stops_the_children_and_no_request_follows(make_agent, mock_api):
    mock_api.script(Reply([task("slow", "SLOW: look")]))
    mock_api.script_for("SLOW:", Reply([Text("x" * 400)], chunk_delay=0.05))
    agent = make_agent()
    started = asyncio.Event()

    def seen(event: ev.AgentEvent) -> None:
        if isinstance(event, ev.SubagentStep) and isinstance(event.step, ev.TextDelta):
            started.set()

    turn = asyncio.ensure_future(agent.run_turn("explore", on_event=seen))
    await asyncio.wait_for(started.wait(), 10)
    turn.cancel()
    try:
        await turn
    except asyncio.CancelledError:
        pass
    # the turn ended only once its child had: nothing is left running that could send a request
    assert agent.subagents.running == 0 and not agent.busy
    assert len(mock_api.message_bodies) == 2  # the parent's, the child's
    assert mock_api.pending == 0


async def test_a_child_that_raises_is_an_error_result_not_the_parents_crash(make_agent, mock_api, monkeypatch):
    from agentls.agent.subagents.child import Child

    async def broken(self, on_event):  # a bug in the child (not the API): it must stay the child's
        raise RuntimeError("the child broke")

    monkeypatch.setattr(Child, "run", broken)
    mock_api.script(Reply([task("fragile", "THETA: look")]), Reply([Text("went on")]))
    agent = make_agent()
    result = await agent.run_turn("explore")
    assert result.text == "went on"
    [answer] = results(mock_api.message_bodies[-1])
    assert answer["is_error"] and "RuntimeError: the child broke" in answer["content"]


async def test_bad_task_input_is_the_calls_error(make_agent, mock_api):
    mock_api.script(Reply([ToolUse("task", {"description": "x", "prompt": "p", "tools": ["rm_everything"]}),
                           ToolUse("task", {"prompt": "no description"}),
                           ToolUse("task", {"description": "x", "prompt": "p", "model": "m\x1b[2J" + "x" * 300})]),
                    Reply([Text("ok")]))
    agent = make_agent()
    await agent.run_turn("explore")
    unknown, missing, model = results(mock_api.message_bodies[-1])
    assert unknown["is_error"] and "no tool named 'rm_everything'" in unknown["content"]
    assert missing["is_error"] and "description" in missing["content"]
    assert model["is_error"] and "`model` must be a model id" in model["content"] and "x" * 300 not in model["content"]
    assert len(mock_api.message_bodies) == 2  # no child was started


async def test_two_children_writing_at_once_both_land_in_the_turns_checkpoint(make_agent, mock_api, workspace):
    """Each child snapshots before its own write: side by side, neither's change is lost to a rewind."""
    mock_api.script(Reply([task("write a", "IOTA: write a.txt", tools=["write_file"]),
                           task("write b", "KAPPA: write b.txt", tools=["write_file"])]), Reply([Text("both")]))
    gate = asyncio.Event()
    asked: list[str] = []

    async def approve(request) -> bool:  # both children wait at their approval until both asked
        asked.append(request.subagent)
        if len(asked) == 2:
            gate.set()
        await asyncio.wait_for(gate.wait(), 10)
        return True

    mock_api.script_for("IOTA:", Reply([ToolUse("write_file", {"path": "a.txt", "content": "a\n"})]),
                        Reply([Text("a")]))
    mock_api.script_for("KAPPA:", Reply([ToolUse("write_file", {"path": "b.txt", "content": "b\n"})]),
                        Reply([Text("b")]))
    agent = make_agent(approve=approve)
    events: list[ev.AgentEvent] = []
    await agent.run_turn("write both", on_event=events.append)
    assert sorted(asked) == ["write a", "write b"]
    assert (workspace / "a.txt").read_text() == "a\n" and (workspace / "b.txt").read_text() == "b\n"
    [taken] = [e for e in events if isinstance(e, ev.CheckpointTaken)]
    assert sorted(f.path for f in taken.files) == ["a.txt", "b.txt"]


async def test_in_plan_mode_a_child_only_reads_too(make_agent, mock_api, workspace):
    def never(request):
        raise AssertionError(f"plan mode asked about {request}")

    mock_api.script(Reply([task("try a write", "LAMBDA: write c.txt", tools=["write_file", "read_file"])]),
                    Reply([Text("planned")]))
    mock_api.script_for("LAMBDA:", Reply([ToolUse("write_file", {"path": "c.txt", "content": "c\n"})]),
                        Reply([Text("refused")]))
    agent = make_agent(approve=never)
    agent.set_mode("plan")
    await agent.run_turn("plan it")
    assert not (workspace / "c.txt").exists()
    [child_second] = [b for b in mock_api.message_bodies if "LAMBDA:" in str(b["messages"][0])][1:]
    [refused] = results(child_second)
    assert refused["is_error"] and "plan mode is on" in refused["content"]


async def test_a_resumed_task_card_keeps_its_subagents_steps_and_cost(make_agent, mock_api):
    mock_api.script(Reply([task("scan", "MU: scan")]), Reply([Text("scanned")]))
    mock_api.script_for("MU:", Reply([ToolUse("grep_search", {"pattern": "main"})]), Reply([Text("found main")]))
    agent = make_agent()
    await agent.run_turn("scan it")
    before = agent.cost()
    agent.session.close()
    again = make_agent(new=False)  # a restart: the same session, read back from its records
    [card] = [t for e in await again.transcript() for t in e.tools if t.name == "task"]
    assert card.subagent is not None and card.subagent.name == "scan" and not card.subagent.is_error
    assert [(s.tool, s.is_error) for s in card.subagent.steps] == [("grep_search", False)]
    assert card.subagent.requests == 2 and card.subagent.transcript.endswith("/transcript")
    after = again.cost()
    assert [(c.name, c.requests, c.usage) for c in after.subagents] == [(c.name, c.requests, c.usage)
                                                                        for c in before.subagents]
    assert after.requests == before.requests and after.usage == before.usage
