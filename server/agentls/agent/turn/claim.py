"""One thing at a time: a turn, a compaction, a session switch claim the conversation.

What a running call may still use (an old model client, a demo model) is retired:
closed once nothing holds the claim.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from ..errors import AgentBusy


def _current_task() -> asyncio.Task[Any] | None:
    try:
        return asyncio.current_task()
    except RuntimeError:  # called outside a running loop (a synchronous caller)
        return None


class Claim:
    def __init__(self) -> None:
        self._busy: str | None = None  # what holds the conversation now (exclusive())
        self._busy_task: asyncio.Task[Any] | None = None
        self._retired: list[Callable[[], Awaitable[Any]]] = []  # closers of what a running call may still use
        self._background: set[asyncio.Future[Any]] = set()

    @property
    def busy(self) -> bool:
        return self._busy is not None

    @contextlib.contextmanager
    def exclusive(self, what: str) -> Iterator[None]:
        """Claim the conversation for `what` (a turn, a compaction, a session switch…).

        Check and claim are synchronous, so two requests cannot interleave; the
        task that holds the claim may claim again (a front end that claims around
        several steps calls run_turn, clear or resume inside). Anything else
        asked meanwhile raises AgentBusy.
        """
        task = _current_task()
        if self._busy is not None:
            if task is not None and task is self._busy_task:
                yield
                return
            if self._busy == "turn":
                raise AgentBusy("a turn is already running; cancel it or wait")
            raise AgentBusy(f"a {self._busy} is running; wait for it to end")
        self._busy, self._busy_task = what, task
        try:
            yield
        finally:
            self._busy, self._busy_task = None, None
            self._schedule(self.close_retired())

    def retire(self, close: Callable[[], Awaitable[Any]]) -> None:
        """Close something a running call may still use once idle."""
        self._retired.append(close)
        self._schedule(self.close_retired())

    async def stop(self) -> None:
        """Cancel what holds the claim (unless it is the caller): it ends with a valid history."""
        task = self._busy_task
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()
            await asyncio.wait([task], timeout=5)

    async def close_retired(self, force: bool = False) -> None:
        if self.busy and not force:
            return  # a stream may still use them; the claim's end closes them
        closers, self._retired = self._retired, []
        for close in closers:
            with contextlib.suppress(Exception):  # closing is best effort
                await close()

    def _schedule(self, coroutine: Awaitable[Any]) -> None:
        try:
            task = asyncio.ensure_future(coroutine)
        except RuntimeError:  # no running loop (a synchronous caller): closed at aclose
            if inspect.iscoroutine(coroutine):
                coroutine.close()
            return
        self._background.add(task)
        task.add_done_callback(self._background.discard)
