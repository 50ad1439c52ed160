"""run_shell through the client's terminal (terminal/create … terminal/release), when it offers one.

The user watches the command live in the editor (the terminal is embedded in
the tool call), and the model gets the same text as from the local runner:
the output (the client keeps its tail within `outputByteLimit`), then the exit
code, the signal or the timeout. Approval happened before (run_shell asks).
A timeout or a cancelled turn kills the command; the terminal is always
released, even when the turn is cancelled meanwhile. A client that never
answers terminal/create fails the call after client_wait.client_seconds()
(30 s by default) with a tool error; a cancelled turn ends the wait at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
from collections.abc import Awaitable, Callable
from typing import Any

from acp import RequestError
from acp.schema import EnvVariable

from ..agent.shell_runner import ShellRun
from ..agent.tools.run_shell import strip_colours
from .client_wait import client_answer, client_seconds, raise_if_cancelled

log = logging.getLogger(__name__)

# As run_shell's own runner: nothing may wait for a human, and the agent's credentials are not the
# command's business (ACP can set variables, not unset them: they are set empty).
ENVIRONMENT = {"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0",
               "ANTHROPIC_API_KEY": "", "ANTHROPIC_AUTH_TOKEN": ""}
RELEASE_SECONDS = 5.0  # for the clean-up requests once the command is over or abandoned


class ClientTerminal:
    """A ShellRunner (agent/tools/run_shell.py) over the client's terminal/* methods."""

    def __init__(self, client: Any, session_id: Callable[[], str | None],
                 started: Callable[[str], Awaitable[None]]) -> None:
        self.client = client
        self.session_id = session_id
        self.started = started  # told the terminal id, to embed it in the running tool call

    async def __call__(self, command: str, cwd: str, timeout: float, output_cap: int) -> ShellRun:
        session_id = self.session_id()
        if session_id is None:
            raise OSError("the session is not open")
        seconds = client_seconds()
        try:
            created = await asyncio.wait_for(self.client.create_terminal(
                session_id=session_id, command=shutil.which("bash") or "/bin/sh", args=["-c", command], cwd=cwd,
                env=[EnvVariable(name=name, value=value) for name, value in ENVIRONMENT.items()],
                output_byte_limit=output_cap), seconds)
        except RequestError as error:
            raise OSError(f"the editor's terminal refused it: {error}") from None
        except asyncio.TimeoutError:
            raise OSError(f"the editor did not answer terminal/create within {seconds:g} s; "
                          "whether the command started is not known") from None
        terminal_id = created.terminal_id
        try:
            raise_if_cancelled()  # stopped as the terminal was made: it is killed and released below
            with contextlib.suppress(Exception):  # showing it is a nicety; running it is the point
                await self.started(terminal_id)
            exited = await self._wait(session_id, terminal_id, timeout)
            output = await self.client.terminal_output(session_id=session_id, terminal_id=terminal_id)
        except BaseException:
            await self._finish(session_id, terminal_id, kill=True)
            raise
        await self._finish(session_id, terminal_id, kill=False)
        text = strip_colours(output.output).rstrip("\n") or "(no output)"
        note = "[earlier output was cut by the editor's terminal]" if output.truncated else ""
        if exited is None:
            return ShellRun(text, None, None, note)  # timed out: killed above
        if exited.exit_code is None and exited.signal:
            return ShellRun(text, None, str(exited.signal), note)
        return ShellRun(text, exited.exit_code if exited.exit_code is not None else -1, None, note)

    async def _wait(self, session_id: str, terminal_id: str, timeout: float) -> Any:
        """The exit status, or None after a timeout (the command is then killed)."""
        try:
            return await client_answer(
                self.client.wait_for_terminal_exit(session_id=session_id, terminal_id=terminal_id), timeout)
        except asyncio.TimeoutError:
            await self.client.kill_terminal(session_id=session_id, terminal_id=terminal_id)
            return None

    async def _finish(self, session_id: str, terminal_id: str, kill: bool) -> None:
        """Kill (when abandoned) and release the terminal; shielded, so a cancelled turn still releases it."""
        async def finish() -> None:
            if kill:
                await self.client.kill_terminal(session_id=session_id, terminal_id=terminal_id)
            await self.client.release_terminal(session_id=session_id, terminal_id=terminal_id)

        task = asyncio.ensure_future(asyncio.wait_for(finish(), RELEASE_SECONDS))
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            await asyncio.wait({task})  # still released before the cancellation goes on
            raise
        except Exception as error:  # noqa: BLE001 - the client may be gone; nothing left to clean up
            log.warning("terminal %s not released: %s", terminal_id, error)
