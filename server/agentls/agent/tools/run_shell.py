"""run_shell: a shell command in the first root, after the user approves it.

Here (`run_here`), the command runs in its own process group (new session)
so a timeout or a cancelled turn can kill everything it started, not just
the shell. A command that leaves background processes (`server &`) returns
when the shell exits and the pipe is drained of what the command wrote; what
they print later is read on and dropped, so they never block on a full pipe.
A front end may run it elsewhere instead (the ACP front end uses
the editor's terminal when the client offers one): any `ShellRunner` in the
ToolContext; approval, timeout and the text the model gets stay the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
from collections import deque
from typing import Any

from ..approval import ApprovalRequest
from ..shell_runner import ShellRun
from .base import Tool, ToolContext, ToolOutput, error, one_line

MAX_TIMEOUT = 600.0
# After the shell exits, how long to wait for the output pipe to close while
# processes of its group (background children: `server &`) are still alive.
DRAIN_GRACE = 0.2
# With the group gone the pipe closes as soon as the reader has read what is
# buffered (a busy machine may take a while to get there); only a process that
# left the group (setsid, a daemon) can hold it longer.
ESCAPED_GRACE = 5.0

DESCRIPTION = (
    "Run a shell command (bash) in the workspace root and return its combined "
    "stdout/stderr and exit code. The user must approve each command. No stdin; "
    "long output is cut in the middle. timeout is in seconds."
)

SCHEMA = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "description": "The command line, e.g. 'pytest -q tests/unit'."},
        "timeout": {"type": "number", "minimum": 1, "description": "Seconds before the command is killed."},
    },
    "required": ["command"],
}

# Colour codes only cost tokens.
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
DETACHED = "[background processes still hold the output; it is no longer captured (redirect it to a file)]"


def strip_colours(text: str) -> str:
    return _ANSI.sub("", text)


class _HeadTail:
    """Keeps the first and last `cap/2` bytes of a stream of any size."""

    def __init__(self, cap: int) -> None:
        self.half = max(cap // 2, 1)
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_size = 0
        self.total = 0
        self.closed = False  # the call has returned: what still comes is read and dropped

    def add(self, chunk: bytes) -> None:
        if self.closed:
            return
        self.total += len(chunk)
        room = self.half - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail.append(chunk)
            self.tail_size += len(chunk)
            while self.tail_size - len(self.tail[0]) >= self.half:
                self.tail_size -= len(self.tail.popleft())

    def text(self) -> str:
        tail = b"".join(self.tail)[-self.half :]
        omitted = self.total - len(self.head) - len(tail)
        body = self.head.decode("utf-8", errors="replace")
        if omitted > 0:
            body += f"\n… [{omitted} bytes of output omitted] …\n"
        body += tail.decode("utf-8", errors="replace")
        return strip_colours(body)


# The agent's own credentials are not the command's business (and a model
# could otherwise simply `echo` them into the conversation).
_HIDDEN_ENV = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _HIDDEN_ENV}
    # Nothing may wait for a human: no pagers, no credential prompts.
    env.update(PAGER="cat", GIT_PAGER="cat", GIT_TERMINAL_PROMPT="0")
    return env


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # pgid == pid: started with start_new_session
    except (ProcessLookupError, PermissionError):
        pass


async def _pump(proc: asyncio.subprocess.Process, sink: _HeadTail) -> None:
    assert proc.stdout is not None
    while chunk := await proc.stdout.read(65536):
        sink.add(chunk)


# Readers of the output of background children after their call has returned.
# They read to the end, so a background server that logs more than a pipe
# holds never blocks on a full pipe (or dies of a closed one); held here so
# they are not collected while they run.
_DETACHED_READERS: set[asyncio.Task[None]] = set()


def _keep_reading(reader: asyncio.Task[None], sink: _HeadTail) -> None:
    sink.closed = True
    _DETACHED_READERS.add(reader)
    reader.add_done_callback(_DETACHED_READERS.discard)


def _group_alive(proc: asyncio.subprocess.Process) -> bool:
    """Whether a process of the command's group (pgid == the shell's pid) still runs."""
    try:
        os.killpg(proc.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member runs as another user: it still runs
        pass
    return True


async def _drained(proc: asyncio.subprocess.Process, reader: asyncio.Task[None]) -> bool:
    """After the shell has exited: whether the output was read to its end, or (False) background
    processes still hold it. Waits while only the reader is behind (a busy machine), not for them."""
    waited = 0.0
    while True:
        done, _ = await asyncio.wait({reader}, timeout=DRAIN_GRACE)
        if done:
            return True
        waited += DRAIN_GRACE
        if _group_alive(proc) or waited >= ESCAPED_GRACE:
            return False


async def _exit_code(proc: asyncio.subprocess.Process) -> int:
    # Not proc.wait(): that also waits for the output pipe to close, which a
    # background child (`server &`) may hold open for as long as it lives.
    while proc.returncode is None:
        await asyncio.sleep(0.02)
    return proc.returncode


async def _spawn(command: str, cwd: str) -> asyncio.subprocess.Process:
    creating = asyncio.ensure_future(
        asyncio.create_subprocess_shell(
            command,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
            env=_environment(),
            executable=shutil.which("bash") or "/bin/sh",
        )
    )
    try:
        return await asyncio.shield(creating)
    except asyncio.CancelledError:
        # The shell may already be running before creation returns, and
        # asyncio's own clean-up would kill only the shell: kill the group.
        with contextlib.suppress(Exception):
            proc = await creating
            _kill_group(proc)
            await asyncio.wait_for(_exit_code(proc), 2.0)
        raise


async def _execute(command: str, cwd: str, timeout: float, sink: _HeadTail) -> tuple[int | None, bool]:
    """Run the command; (exit code or None on timeout, whether children still hold the output)."""
    proc = await _spawn(command, cwd)
    reader = asyncio.create_task(_pump(proc, sink))
    detached = False
    try:
        code: int | None
        try:
            code = await asyncio.wait_for(_exit_code(proc), timeout)
        except asyncio.TimeoutError:
            _kill_group(proc)
            await _exit_code(proc)
            code = None
        detached = not await _drained(proc, reader)
        if detached:
            _keep_reading(reader, sink)
        return code, detached
    except asyncio.CancelledError:
        _kill_group(proc)
        try:
            await asyncio.wait_for(_exit_code(proc), 2.0)  # until the child watcher has reaped it
        except (asyncio.TimeoutError, asyncio.CancelledError):
            pass
        raise
    finally:
        if not detached:
            reader.cancel()


async def run_here(command: str, cwd: str, timeout: float, output_cap: int) -> ShellRun:
    """The ShellRunner of this process: bash in its own process group."""
    sink = _HeadTail(output_cap)
    code, detached = await _execute(command, cwd, timeout, sink)
    output = sink.text().rstrip("\n") or "(no output)"
    note = DETACHED if detached else ""
    if code is not None and code < 0:
        return ShellRun(output, None, str(-code), note)
    return ShellRun(output, code, None, note)


async def run(input: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    command: str = input["command"]
    timeout = min(float(input.get("timeout") or ctx.shell_timeout), max(ctx.shell_timeout, MAX_TIMEOUT))
    short = f"$ {one_line(command)}"
    if not command.strip():
        return error("The command is empty.", f"{short} (empty)")
    if not await ctx.approve(ApprovalRequest(kind="shell", command=command)):
        return error(f"The user did not approve running: {command}", f"{short} → not approved")

    runner = ctx.shell or run_here
    try:
        ran = await runner(command, str(ctx.workspace.roots[0]), timeout, ctx.output_cap)
    except OSError as exc:
        return error(f"Could not start the command: {exc}", f"{short} → failed to start")
    output = ran.output + (f"\n{ran.note}" if ran.note else "")
    if ran.signal is not None:
        return ToolOutput(f"{output}\n[killed by signal {ran.signal}]", False, f"{short} → signal {ran.signal}")
    if ran.exit_code is None:
        text = f"{output}\n[timed out after {timeout:g} s; the command and its children were killed]"
        return error(text, f"{short} → timed out")
    # A non-zero exit is information for the model, not a tool failure.
    return ToolOutput(f"{output}\n[exit code {ran.exit_code}]", False, f"{short} → exit {ran.exit_code}")


TOOL = Tool("run_shell", DESCRIPTION, SCHEMA, run)
