"""A turn stopped just as the editor answers stays stopped (acp/client_wait.py).

Before Python 3.12, asyncio.wait_for returns an answer that arrives in the same loop iteration as a cancel,
and the cancel is lost. Seen in CI under load: the test client answered terminal/create as the test sent
session/cancel, and the turn waited for `sleep 60` instead of stopping. Here the race is made exact: the
answer is set and the task cancelled before either runs.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from agentls.acp.client_terminal import ClientTerminal
from agentls.acp.client_wait import client_answer


async def _answered_as_cancelled(waiting) -> asyncio.Task:
    """Run `waiting(answer)` until it awaits, then answer it and cancel it in the same loop iteration."""
    answer = asyncio.get_running_loop().create_future()
    task = asyncio.ensure_future(waiting(answer))
    await asyncio.sleep(0)
    answer.set_result(SimpleNamespace(terminal_id="term-1", output="", truncated=False))
    task.cancel()
    await asyncio.wait({task})
    return task


async def test_a_cancel_that_lands_with_the_answer_is_raised() -> None:
    task = await _answered_as_cancelled(lambda answer: client_answer(answer, 5))
    assert task.cancelled()


class TerminalClient:
    """The terminal/* requests a client answers; terminal/create's answer is the test's future."""

    def __init__(self) -> None:
        self.created: asyncio.Future | None = None
        self.calls: list[str] = []

    def create_terminal(self, **_):
        self.calls.append("create")
        assert self.created is not None
        return self.created

    async def wait_for_terminal_exit(self, **_):
        self.calls.append("wait")
        await asyncio.sleep(60)  # `sleep 60`: it only ends when killed

    async def kill_terminal(self, **_):
        self.calls.append("kill")

    async def release_terminal(self, **_):
        self.calls.append("release")


async def test_a_terminal_made_as_the_turn_is_stopped_is_killed_and_released() -> None:
    client = TerminalClient()

    async def started(terminal_id: str) -> None:
        pass

    terminal = ClientTerminal(client, lambda: "session-1", started)

    def waiting(answer: asyncio.Future):
        client.created = answer
        return terminal("sleep 60", "/tmp", 120, 10_000)

    task = await asyncio.wait_for(_answered_as_cancelled(waiting), 10)
    assert task.cancelled()
    assert client.calls == ["create", "kill", "release"]  # never waited for the command to end


@pytest.mark.parametrize("answered", [True, False])
async def test_an_answer_with_no_cancel_is_returned(answered: bool) -> None:
    answer = asyncio.get_running_loop().create_future()
    if answered:
        answer.set_result("yes")
        assert await client_answer(answer, 5) == "yes"
    else:
        with pytest.raises(asyncio.TimeoutError):
            await client_answer(answer, 0.01)
