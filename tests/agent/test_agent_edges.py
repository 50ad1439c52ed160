"""Issue 8, points 3 and 6 at the agent level, against the mock API through the real SDK."""

from __future__ import annotations

import re

import pytest

from agentls.agent import events as ev
from agentls.agent.errors import AgentError
from agentls.context import ContextConfig
from agentls.mock_api import Fault, Reply, Text, ToolUse
from agentls.mock_api.tokens import count_input_tokens
from agentls.context.attachments import Attachment


async def test_invalid_sse_data_is_retried_like_a_truncated_stream(make_agent, mock_api):
    agent = make_agent()
    mock_api.inject(Fault.bad_data(after_events=4))
    mock_api.script(Reply([Text("whole reply")]))
    seen: list[ev.AgentEvent] = []
    result = await agent.run_turn("hi", seen.append)
    assert result.text == "whole reply"
    retries = [e for e in seen if isinstance(e, ev.RetryEvent)]
    assert retries and "invalid stream data" in retries[0].reason


async def test_invalid_sse_data_every_time_ends_with_a_clear_error_event(make_agent, mock_api):
    agent = make_agent(max_retries=2)
    mock_api.inject(Fault.bad_data(after_events=4), times=3)
    seen: list[ev.AgentEvent] = []
    with pytest.raises(AgentError) as failure:
        await agent.run_turn("hi", seen.append)
    assert "invalid stream data after 3 attempts" in str(failure.value)
    errors = [e for e in seen if isinstance(e, ev.ErrorEvent)]
    assert errors and "JSONDecodeError" not in errors[0].message
    mock_api.script(Reply([Text("fine again")]))
    assert (await agent.run_turn("again")).text == "fine again"


# ---------------------------------------------------------------- point 3: one oversized message

BIG = "".join(f"line {n}: {'x' * 60}\n" for n in range(48_000))  # ~3.3 MB, an @-mentioned minified bundle
WINDOW = ContextConfig(window=24_000, output_reserve=4_000)  # 20,000 tokens the API accepts


def _refused(mock_api) -> int:
    return sum(1 for body in mock_api.message_bodies if count_input_tokens(body) > mock_api.max_prompt_tokens)


def _ref_in(body: dict) -> str:
    texts = [b["text"] for m in body["messages"] if m["role"] == "user" and isinstance(m["content"], list)
             for b in m["content"] if b.get("type") == "text"]
    return next(re.search(r"context://user-[0-9a-f]+", t).group(0) for t in texts if "context://user-" in t)


async def test_an_oversized_attachment_is_cut_losslessly_and_never_refused(make_agent, mock_api):
    mock_api.max_prompt_tokens = 20_000
    agent = make_agent(context=WINDOW)
    mock_api.script(Reply([Text("Reading its start.")]))
    result = await agent.run_turn("what is in this bundle?", attachments=[Attachment("dist/bundle.min.js", BIG)])
    assert result.text == "Reading its start." and _refused(mock_api) == 0
    assert agent.context().report.utilization < 1  # not 368%
    ref = _ref_in(mock_api.message_bodies[-1])
    mock_api.script(Reply([ToolUse("read_file", {"path": ref, "start_line": 40_000, "end_line": 40_001})]),
                    Reply([Text("line 39999 and 40000")]))
    await agent.run_turn("read lines 40000-40001 of it")
    read_back = mock_api.message_bodies[-1]["messages"][-1]["content"][0]["content"]
    stored = agent.engine.store.get(ref)
    assert BIG in stored  # lossless: the whole attachment block, header included
    assert read_back == "\n".join(stored.splitlines()[39_999:40_001])
    mock_api.script(Reply([Text("<summary>a bundle was attached</summary>")]))
    await agent.compact()
    mock_api.script(Reply([Text("still fine")]))
    assert (await agent.run_turn("and now?")).text == "still fine"
    assert _refused(mock_api) == 0


async def test_a_too_long_refusal_is_repaired_and_retried_exactly_once(make_agent, mock_api):
    mock_api.max_prompt_tokens = 6_000  # the endpoint counts more tokens than our chars/4 estimate
    agent = make_agent(context=WINDOW)
    mock_api.script(Reply([Text("got it")]))
    text = "word " * 12_000  # 60,000 chars: within our half-window share once cut, not within the real limit
    result = await agent.run_turn("summarise", attachments=[Attachment("notes.txt", text)])
    assert result.text == "got it"
    assert _refused(mock_api) == 1 and len(mock_api.message_bodies) == 2
    mock_api.script(Reply([Text("next")]))
    assert (await agent.run_turn("next")).text == "next" and _refused(mock_api) == 1


async def test_a_session_saved_with_an_oversized_message_restarts_usable(make_agent, mock_api):
    mock_api.max_prompt_tokens = 20_000
    first = make_agent(context=WINDOW)
    first.session.message({"role": "user", "content": [{"type": "text", "text": BIG}]})  # as the old code saved it
    await first.aclose()
    again = make_agent(context=WINDOW, new=False)
    assert again.context().report.utilization < 1
    mock_api.script(Reply([Text("back")]))
    assert (await again.run_turn("hello again")).text == "back" and _refused(mock_api) == 0
