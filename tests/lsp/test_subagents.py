"""Subagents (issue 34 item 1) over LSP, with pytest-lsp against the real server and the mock API.

Two `task` calls of one reply run side by side, each child with a history of its own; the parent's next
request carries only their two results; agent/cost names each child's tokens and their sum; a child that
writes asks once, on its task's card, naming itself; a cancel stops a child (no request after it); a fork
reads the parent's prefix from the prompt cache.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from agentls.mock_api import Reply, Text, ToolUse
from agentls.mock_api.binding import without_cache_control

from .helpers import options_for, wait_until


def task(description: str, prompt: str, **extra) -> ToolUse:
    return ToolUse("task", {"description": description, "prompt": prompt, **extra})


def results(message: dict) -> list[dict]:
    return [b for b in message["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]


def bodies_with(mock_api, marker: str) -> list[dict]:
    """The requests whose user texts hold `marker` (a child's prompt)."""
    return [b for b in mock_api.message_bodies
            if any(m["role"] == "user" and isinstance(m["content"], list)
                   and any(c.get("type") == "text" and marker in c.get("text", "") for c in m["content"])
                   for m in b["messages"])]


async def test_two_parallel_tasks_own_histories_two_results_and_cost_per_child(start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api))
    mock_api.script(Reply([ToolUse("read_file", {"path": "notes.md"})]),  # a result of the parent's own
                    Reply([task("find callers", "ALPHA: who calls main?"),
                           task("read notes", "BETA: what do the notes say?")]),
                    Reply([Text("Both answered.")]))
    mock_api.script_for("ALPHA:", Reply([ToolUse("grep_search", {"pattern": "main"})]),
                        Reply([Text("main is called nowhere.")]))
    mock_api.script_for("BETA:", Reply([Text("The answer is 42.")]))
    result = await editor.request("agent/chat", {"prompt": "explore the project"})
    assert result["text"] == "Both answered."

    alpha, beta = bodies_with(mock_api, "ALPHA:"), bodies_with(mock_api, "BETA:")
    assert len(alpha) == 2 and len(beta) == 1
    for body in (*alpha, *beta):  # their own histories: their prompt first, none of the parent's results
        assert body["messages"][0]["role"] == "user"
        assert "The answer is 42.\n" not in json.dumps(body["messages"])  # notes.md, as the parent read it
        assert "task" not in [t["name"] for t in body["tools"]]  # read-only by default, no nested tasks
        assert {t["name"] for t in body["tools"]} >= {"read_file", "grep_search", "list_files"}
        assert not {"write_file", "edit_file", "run_shell"} & {t["name"] for t in body["tools"]}
    assert [r["tool_use_id"] for r in results(alpha[1]["messages"][-1])]  # ALPHA's own grep result
    parent_next = mock_api.message_bodies[-1]
    last = parent_next["messages"][-1]
    answers = results(last)
    assert len(answers) == 2 and len(last["content"]) == 2  # only the two results
    assert answers[0]["content"].startswith("main is called nowhere.")
    assert answers[1]["content"].startswith("The answer is 42.")
    assert "context://" in answers[0]["content"] and "/transcript" in answers[0]["content"]

    cards = [e for e in editor.events if e["kind"] in ("subagentStarted", "subagentFinished")]
    assert sorted(e["name"] for e in cards if e["kind"] == "subagentStarted") == ["find callers", "read notes"]
    steps = [e for e in editor.events if e["kind"] == "subagentStep"]
    assert {e["step"]["kind"] for e in steps} >= {"toolStart", "toolEnd", "textDelta"}

    cost = await editor.request("agent/cost")
    named = {c["name"]: c for c in cost["subagents"]}
    assert set(named) == {"find callers", "read notes"}
    assert named["find callers"]["requests"] == 2 and named["read notes"]["requests"] == 1
    assert all(c["inputTokens"] > 0 and c["outputTokens"] > 0 for c in named.values())
    assert cost["requests"] == 3 + 3  # the parent's three and the children's three
    children_input = sum(c["inputTokens"] for c in named.values())
    parent_input = sum(b["usage"]["input_tokens"] for b in _answers(mock_api, parent=True))
    assert cost["inputTokens"] == parent_input + children_input

    original = await editor.request("agent/toolResult", {"toolUseId": answers[0]["tool_use_id"]})
    assert original["tool"] == "task"
    transcript = await editor.request("agent/toolResult", {"toolUseId": answers[0]["tool_use_id"] + "/transcript",
                                                           "original": True})
    assert transcript["ref"] in answers[0]["content"]  # the ref the parent was told opens the whole transcript
    assert "ALPHA: who calls main?" in transcript["original"] and "grep_search" in transcript["original"]
    assert "main is called nowhere." in transcript["original"]


def _answers(mock_api, parent: bool) -> list[dict]:
    """The mock's answers (JSON messages) to the parent's requests (those with `task` among their tools)."""
    return [answer for body, answer in mock_api.answered
            if ("task" in [t["name"] for t in body.get("tools", [])]) == parent]


async def test_a_child_that_writes_asks_once_naming_itself(start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api))
    mock_api.script(Reply([task("write greeting", "GAMMA: create hello.txt", tools=["write_file", "read_file"])]),
                    Reply([Text("written")]))
    mock_api.script_for("GAMMA:", Reply([ToolUse("write_file", {"path": "hello.txt", "content": "hi\n"})]),
                        Reply([Text("hello.txt created")]))
    await editor.request("agent/chat", {"prompt": "greet"})
    [asked] = editor.confirms
    [started] = [e for e in editor.events if e["kind"] == "subagentStarted"]
    assert asked["kind"] == "write" and asked["path"] == "hello.txt"
    assert asked["subagent"] == "write greeting" and asked["toolUseId"] == started["toolUseId"]
    assert len(editor.edits) == 1  # written by the editor, once approved
    [child_end] = [e["step"] for e in editor.events if e["kind"] == "subagentStep" and e["step"]["kind"] == "toolEnd"]
    assert child_end["approval"] == "approved" and not child_end["isError"]


async def test_cancel_during_a_child_stops_it_and_no_request_follows(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api))
    await editor.request("agent/models")  # the SDK loaded first: the waits below are the turn's
    mock_api.script(Reply([task("slow look", "DELTA: look slowly")]))
    # the child would read a file after this slow reply, then ask again: neither may happen after the cancel
    mock_api.script_for("DELTA:", Reply([Text("looking " * 200), ToolUse("read_file", {"path": "notes.md"})],
                                        chunk_delay=0.02), Reply([Text("too late")]))
    turn = asyncio.ensure_future(editor.request("agent/chat", {"prompt": "look"}, msg_id="with-child"))
    await wait_until(lambda: any(e["kind"] == "subagentStep" and e["step"]["kind"] == "textDelta"
                                 for e in editor.events))
    editor.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="with-child"))
    with pytest.raises(JsonRpcException) as cancelled:
        await turn
    assert cancelled.value.code == -32800
    mock_api.script(Reply([Text("next")]))
    assert (await editor.request("agent/chat", {"prompt": "next"}))["text"] == "next"
    assert len(bodies_with(mock_api, "DELTA:")) == 1  # the child's one request; none after the cancel
    assert mock_api.pending == 1  # the child's second answer was never asked for
    [answer] = results(mock_api.message_bodies[-1]["messages"][-1])  # the cut task call got its result
    assert answer["is_error"] and "cancelled" in answer["content"]


async def test_a_fork_reads_the_parents_prefix_from_the_cache(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api, cacheControl=True))  # breakpoints sent to the mock
    mock_api.script(Reply([task("forked check", "EPSILON: double-check the plan", fork=True)]),
                    Reply([Text("checked")]))
    mock_api.script_for("EPSILON:", Reply([Text("The plan holds.")]))
    await editor.request("agent/chat", {"prompt": "plan the work " + "in detail " * 50})
    parent_first, child_first = mock_api.message_bodies[0], bodies_with(mock_api, "EPSILON:")[0]
    assert without_cache_control(child_first["system"]) == without_cache_control(parent_first["system"])
    assert without_cache_control(child_first["tools"]) == without_cache_control(parent_first["tools"])
    prefix = len(parent_first["messages"])
    assert without_cache_control(child_first["messages"][:prefix]) == \
        without_cache_control(parent_first["messages"])  # the parent's prefix, unchanged
    child_answer = next(answer for body, answer in mock_api.answered if body == child_first)
    assert child_answer["usage"]["cache_read_input_tokens"] > 0  # read from the parent's cache
    [cost] = (await editor.request("agent/cost"))["subagents"]
    assert cost["name"] == "forked check" and cost["cacheReadTokens"] > 0

