"""Issue 8, points 3 and 6 at the agent level, against the mock API through the real SDK."""

from __future__ import annotations

import pytest

from agentls.agent import events as ev
from agentls.agent.loop import AgentError
from agentls.mock_api import Fault, Reply, Text


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
