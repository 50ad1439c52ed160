"""Fault suite: over a hundred injected API faults; every turn succeeds after retries
or ends with a clear error, and the session log always replays to a valid history."""

import random

from agentls.agent.errors import AgentError
from agentls.agent.store.records import replay
from agentls.context.structure import request_problems
from agentls.mock_api import Fault
from conftest import SECRET

FAULTS = [
    lambda: Fault.http_status(429, retry_after=0.05),
    lambda: Fault.http_status(500),
    lambda: Fault.http_status(529),
    lambda: Fault.disconnect(after_events=3),
    lambda: Fault.disconnect(after_events=6, reset=True),
    lambda: Fault.truncate(after_events=4),
    lambda: Fault.stream_error(after_events=2),
]


def replays_valid(session) -> bool:
    rows = session.db.read("SELECT kind, body FROM records WHERE session = ? ORDER BY seq", (session.id,))
    restored = replay(rows)
    if restored.skipped:  # every stored record reads
        return False
    messages = restored.messages
    if messages and messages[-1]["role"] == "assistant":
        messages = [*messages, {"role": "user", "content": "next"}]
    return not messages or request_problems(messages) == []


async def test_over_a_hundred_faults_never_corrupt_the_session(make_agent, mock_api):
    agent = make_agent(max_retries=2, timeout=1.0)
    rng = random.Random(7)
    injected = succeeded = failed = corrupted = 0
    for turn in range(60):
        burst = rng.choice([1, 1, 2, 3])  # 3 in a row exhausts the retries
        for _ in range(burst):
            mock_api.inject(rng.choice(FAULTS)())
            injected += 1
        if turn % 20 == 7:
            mock_api.inject(Fault("hang"))  # a server that never answers: the timeout fires
            injected += 1
        try:
            result = await agent.run_turn("What does notes.md say?")
            assert "42" in result.text
            succeeded += 1
        except AgentError as error:
            message = str(error)
            assert SECRET not in message
            assert any(word in message for word in ("429", "500", "529", "overloaded", "connection",
                                                    "timed out", "timeout", "incomplete", "Overloaded", "stream"))
            failed += 1
        while mock_api.pending:  # faults left over from a failed turn are not carried into the next one
            mock_api.next_answer({})
        if not replays_valid(agent.session):
            corrupted += 1
    assert injected >= 100
    assert succeeded + failed == 60 and succeeded > 0 and failed > 0
    assert corrupted == 0
    print(f"faults injected={injected} turns ok={succeeded} clear errors={failed} corrupted={corrupted}")
