"""Where a shell command runs: the contract between run_shell and a front end that runs it elsewhere.

By default run_shell runs a command here (tools/run_shell.py `run_here`); the
ACP front end may run it in the editor's own terminal instead. Approval, the
timeout and the text the model gets stay the same either way.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class ShellRun:
    """How a command ended, wherever it ran."""

    output: str  # combined stdout/stderr, cut to the cap, colour codes removed
    exit_code: int | None  # None: it did not exit by itself (timed out, or killed by a signal)
    signal: str | None = None  # the signal that ended it, when one did ("9", "SIGTERM")
    note: str = ""  # said after the output (e.g. that background processes still hold it)


ShellRunner = Callable[[str, str, float, int], Awaitable[ShellRun]]
"""(command, cwd, timeout seconds, output cap in bytes) → ShellRun; kills the command on timeout or
cancellation; raises OSError when it cannot be started."""
