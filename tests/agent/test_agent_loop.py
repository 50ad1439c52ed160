import asyncio
import sqlite3

import pytest

from agentls.agent import events as ev
from agentls.agent.approval import deny_all
from agentls.agent.errors import AgentError
from agentls.agent.store import SessionStore, open_session
from agentls.context import ContextConfig
from agentls.context.structure import request_problems
from agentls.demo.brain import DEMO_LABEL
from agentls.mock_api import Fault, Reply, Text, Thinking, ToolUse
from conftest import SECRET, UNBOUND_MODEL
from agentls.lsp import protocol


class Recorder:
    def __init__(self):
        self.events = []

    def __call__(self, event):
        self.events.append(event)

    def kinds(self):
        # the wire kinds of docs/protocol.md (ContextUsage travels as its own notification)
        return [protocol.EVENT_KINDS.get(type(e), "contextUsage") for e in self.events]

    def of(self, cls):
        return [e for e in self.events if isinstance(e, cls)]


def valid(agent) -> bool:
    messages = agent.history()
    if messages and messages[-1]["role"] == "assistant":
        messages = [*messages, {"role": "user", "content": [{"type": "text", "text": "next"}]}]
    return request_problems(messages) == []


async def test_demo_model_reads_a_workspace_file_and_answers(make_agent):
    agent = make_agent()
    seen = Recorder()
    result = await agent.run_turn("What does notes.md say?", seen)
    assert DEMO_LABEL in result.text
    assert "42" in result.text
    starts = seen.of(ev.ToolStart)
    assert starts and starts[0].tool == "read_file" and "notes.md" in starts[0].summary
    assert seen.of(ev.ToolEnd)[0].is_error is False
    assert "textDelta" in seen.kinds() and "usage" in seen.kinds() and "contextUsage" in seen.kinds()
    assert valid(agent)


async def test_streamed_thinking_text_and_several_tools_in_one_reply(make_agent, mock_api):
    mock_api.script(
        Reply([Thinking("let me look"), Text("Reading two things."),
               ToolUse("read_file", {"path": "app.py"}), ToolUse("grep_search", {"pattern": "answer"})]),
        Reply([Text("app.py returns hello; notes say 42.")]),
    )
    agent = make_agent()
    seen = Recorder()
    result = await agent.run_turn("look around", seen)
    assert result.text.endswith("notes say 42.")
    assert "".join(e.text for e in seen.of(ev.ThinkingDelta)) == "let me look"
    assert [e.tool for e in seen.of(ev.ToolEnd)] == ["read_file", "grep_search"]
    second = mock_api.message_bodies[-1]["messages"]
    assert [b["type"] for b in second[1]["content"]][:2] == ["thinking", "text"]  # thinking kept as sent
    results = second[2]["content"]
    assert "return 'hello'" in results[0]["content"] and "notes.md" in results[1]["content"]
    assert valid(agent)


async def test_compaction_in_the_middle_of_a_tool_loop_keeps_the_history_valid(make_agent, mock_api, workspace):
    (workspace / "big.txt").write_text("filler line\n" * 2_400)  # over 60% of the window, but it fits
    mock_api.script(
        Reply([ToolUse("read_file", {"path": "big.txt"})]),
        Reply([ToolUse("read_file", {"path": "app.py"})]),
        Reply([Text("<analysis>x</analysis><summary>1. Goal: read files. 6. Next step: answer</summary>")]),
        Reply([Text("done after compaction")]),
    )
    agent = make_agent(context=ContextConfig(window=14_000, output_reserve=1_000, compact_at=0.6, clear_at=9.0,
                                             budget_soft_at=9.0, budget_hard_at=9.0, snip_at=9.0), model=UNBOUND_MODEL)
    seen = Recorder()
    result = await agent.run_turn("read big.txt then app.py", seen)
    assert result.text == "done after compaction"
    assert "compactionStarted" in seen.kinds() and "compactionFinished" in seen.kinds()
    final_request = mock_api.message_bodies[-1]["messages"]
    assert request_problems(final_request) == []
    assert final_request[-1]["content"][0]["type"] == "tool_result"  # the loop went on
    assert "1. Goal: read files" in final_request[0]["content"][0]["text"]
    assert valid(agent)


async def test_cancel_mid_stream_leaves_a_valid_history(make_agent, mock_api):
    mock_api.script(Reply([Text("slow " * 200)], chunk_delay=0.02))
    agent = make_agent()
    task = asyncio.create_task(agent.run_turn("talk slowly"))
    for _ in range(200):  # until the reply is streaming
        if mock_api.message_bodies:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # the partial reply is kept, marked as interrupted (issue 33.2): the next prompt is a message of its own
    last = agent.history()[-1]
    assert last["role"] == "assistant" and "[interrupted: the user stopped this turn" in last["content"][-1]["text"]
    assert valid(agent)
    mock_api.script(Reply([Text("fine again")]))
    result = await agent.run_turn("and now?")
    assert result.text == "fine again"
    assert valid(agent)


async def test_cancel_mid_tool_answers_the_tool_call(make_agent, mock_api, workspace):
    mock_api.script(Reply([ToolUse("run_shell", {"command": "sleep 5; touch done.txt"})]))
    agent = make_agent()
    running = asyncio.Event()
    # cancelled once the tool runs (a fixed sleep could fall in the model call on a loaded machine)
    task = asyncio.create_task(agent.run_turn("run it", lambda e: isinstance(e, ev.ToolStart) and running.set()))
    await running.wait()
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    last = agent.history()[-1]
    assert last["content"][0]["type"] == "tool_result" and "cancelled" in last["content"][0]["content"]
    await asyncio.sleep(0.2)
    assert not (workspace / "done.txt").exists()
    mock_api.script(Reply([Text("ok")]))
    assert (await agent.run_turn("continue")).text == "ok"
    assert valid(agent)


async def test_denied_approval_runs_nothing_and_tells_the_model(make_agent, mock_api, workspace):
    mock_api.script(
        Reply([ToolUse("run_shell", {"command": "touch ran.txt"}),
               ToolUse("write_file", {"path": "new.txt", "content": "x"})]),
        Reply([Text("understood")]),
    )
    agent = make_agent(approve=deny_all)
    await agent.run_turn("do things")
    assert not (workspace / "ran.txt").exists() and not (workspace / "new.txt").exists()
    results = mock_api.message_bodies[-1]["messages"][-1]["content"]
    assert all(r.get("is_error") for r in results)


async def test_api_failure_is_reported_clearly_and_history_stays_valid(make_agent, mock_api):
    for _ in range(4):
        mock_api.inject(Fault.http_status(500))
    agent = make_agent(max_retries=2)
    seen = Recorder()
    with pytest.raises(AgentError) as failure:
        await agent.run_turn("hello", seen)
    assert "500" in str(failure.value) and SECRET not in str(failure.value)
    assert seen.of(ev.ErrorEvent) and valid(agent)
    mock_api.inject(Fault.http_status(500))  # one left over; then it works after a retry
    mock_api.script(Reply([Text("recovered")]))
    assert (await agent.run_turn("again")).text == "recovered"


async def test_session_resumes_with_every_message(make_agent, mock_api, workspace):
    agent = make_agent()
    await agent.run_turn("What does notes.md say?")
    before = agent.history()
    cost = agent.cost()
    session_id = agent.session.id
    await agent.aclose()
    with sqlite3.connect(agent.session.db.path) as db:  # a record that does not read
        db.execute("INSERT INTO records VALUES (?, 1000, 'message', 0, ?)", (session_id, '{"message": {"role": "us'))
    resumed = make_agent(new=False)
    assert resumed.session.id == session_id
    assert resumed.history() == before
    assert resumed.cost().requests == cost.requests
    mock_api.script(Reply([Text("still here")]))
    assert (await resumed.run_turn("and?")).text == "still here"


async def test_manual_compact_cost_context_and_clear(make_agent, mock_api, workspace):
    (workspace / "notes.md").write_text("# Notes\n" + "a line of notes worth summarising\n" * 100)
    agent = make_agent(model=UNBOUND_MODEL)
    await agent.run_turn("What does notes.md say?")
    mock_api.script(Reply([Text("<summary>1. Goal: notes</summary>")]))
    result = await agent.compact("focus on notes")
    assert result.summary == "1. Goal: notes" and result.tokens_before > 0
    assert agent.history()[0]["content"][0]["text"].startswith("[Conversation summary")
    assert "focus on notes" in str(mock_api.message_bodies[-1]["messages"][-1])
    cost = agent.cost()
    assert cost.requests == 3 and cost.usd > 0
    context = agent.context().report
    assert context.categories.system > 0 and context.level == "ok"
    old = agent.session.id
    agent.clear(open_session(agent.workspace.roots[0], new=True))
    assert agent.history() == [] and agent.cost().requests == 0
    assert agent.session.id != old and SessionStore(agent.session.db).info(old).turns == 1  # the old one is kept


async def test_a_cleared_result_can_be_read_back_by_its_ref(make_agent, mock_api, workspace):
    (workspace / "notes.md").write_text("# Notes\nThe answer is 42.\n" + "more notes\n" * 200)
    mock_api.script(
        Reply([ToolUse("read_file", {"path": "notes.md"}, id="toolu_notes")]),
        Reply([ToolUse("read_file", {"path": "app.py"})]),
        Reply([ToolUse("read_file", {"path": "context://toolu_notes"})]),
        Reply([Text("read it back")]),
    )
    config = ContextConfig(clear_at=0.0, clear_keep_recent=1, clear_keep_named_turns=0, min_batch_tokens=0,
                           batch_payoff=0.0)
    agent = make_agent(context=config, model=UNBOUND_MODEL)
    await agent.run_turn("read, then re-read")
    sent = mock_api.message_bodies[-1]["messages"]
    first = sent[2]["content"][0]
    assert first["tool_use_id"] == "toolu_notes"
    assert first["content"].startswith("[old result cleared") and "context://toolu_notes" in first["content"]
    reread = sent[-1]["content"][0]["content"]
    original = mock_api.message_bodies[1]["messages"][2]["content"][0]["content"]
    assert "The answer is 42." in original and reread == original


async def test_a_stream_dropped_mid_reply_is_retried_and_says_to_discard_the_partial_text(make_agent, mock_api):
    mock_api.inject(Fault.disconnect(after_events=8))
    mock_api.script(Reply([Text("one two three four five six seven eight nine ten eleven twelve")]))
    agent = make_agent()
    seen = Recorder()
    result = await agent.run_turn("count", seen)
    retries = seen.of(ev.RetryEvent)
    assert retries and retries[0].discard_partial and protocol.event(retries[0], "t")["discardPartial"] is True
    after = seen.events[seen.events.index(retries[0]) + 1:]
    assert "".join(e.text for e in after if isinstance(e, ev.TextDelta)) == result.text


async def test_text_of_successive_replies_streams_as_it_ends(make_agent, mock_api):
    mock_api.script(Reply([Text("Let me look."), ToolUse("read_file", {"path": "notes.md"})]),
                    Reply([Text("It says 42.")]))
    agent = make_agent()
    seen = Recorder()
    result = await agent.run_turn("look", seen)
    assert result.text == "Let me look.\n\nIt says 42."
    assert "".join(e.text for e in seen.of(ev.TextDelta)) == result.text


@pytest.mark.parametrize("placement", ["frontier", "legacy"])
async def test_after_a_batch_the_request_still_reads_up_to_the_stable_frontier(make_agent, mock_api, workspace,
                                                                             placement):
    from agentls.mock_api.tokens import request_blocks

    for i in range(4):
        (workspace / f"m{i}.py").write_text(f"# module {i}\n" + f"value_{i} = {i}\n" * 600)
    mock_api.script(*[Reply([ToolUse("read_file", {"path": f"m{i}.py"})]) for i in range(4)], Reply([Text("done")]))
    # clearing alone (a fold would take the first turn whole: nothing after the first message to read;
    # tests/unit/test_fold_turns.py holds folds to the frontier)
    config = ContextConfig(clear_at=0.0, clear_keep_recent=2, clear_keep_named_turns=0, min_batch_tokens=0,
                           batch_payoff=0.0, fold_settled=False)
    agent = make_agent(context=config, force_cache_control=True, cache_placement=placement, model=UNBOUND_MODEL)
    recorder = Recorder()
    await agent.run_turn("read the modules", on_event=recorder)
    reads = [e.usage.cache_read_input_tokens for e in recorder.of(ev.UsageEvent)][:-1]  # the last is the turn's total
    bodies = mock_api.message_bodies
    batch = next(i for i, body in enumerate(bodies) if any(
        isinstance(m["content"], list) and any(str(b.get("content", "")).startswith("[old result cleared")
                                               for b in m["content"]) for m in body["messages"]))
    # The fixed head (tools, system) and the first user message.
    head = sum(b.tokens for b in request_blocks(bodies[batch])[:len(bodies[batch]["tools"]) + 2])
    if placement == "frontier":
        assert reads[batch] > head  # the frontier before the rewritten result is read
        marked = [i for i, m in enumerate(bodies[batch]["messages"]) if isinstance(m["content"], list)
                  and any("cache_control" in b for b in m["content"])]
        assert len(marked) == 3 and "cache_control" not in bodies[batch]["tools"][-1]
    else:
        assert reads[batch] <= head  # only the head and the first message survive the rewrite
