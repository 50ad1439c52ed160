"""run_shell: exit codes, combined output, caps, timeouts and cancellation kill the process group."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest

from agentls.agent.approval import auto_approve
from agentls.agent.tools import ToolContext, run_shell, run_tool
from agentls.agent.tools.run_shell import DETACHED
from agentls.agent.workspace import Workspace

# They measure how long things take: one at a time under pytest-xdist (./run test), never side by side.
pytestmark = pytest.mark.xdist_group("timing")


def _ctx(root: Path, **kw) -> ToolContext:
    return ToolContext(Workspace([root]), auto_approve, **kw)


async def _wait_for(path: Path, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        await asyncio.sleep(0.02)


async def test_exit_code_combined_output_and_cwd(tmp_path: Path) -> None:
    out = await run_tool("run_shell", {"command": "pwd; echo to-stderr >&2; exit 3"}, _ctx(tmp_path))
    assert not out.is_error  # a failing command is a result, not a tool error
    assert out.text == f"{tmp_path.resolve()}\nto-stderr\n[exit code 3]"
    assert out.summary == "$ pwd; echo to-stderr >&2; exit 3 → exit 3"


async def test_no_output_and_no_stdin(tmp_path: Path) -> None:
    out = await run_tool("run_shell", {"command": "cat"}, _ctx(tmp_path))  # would hang on a tty
    assert out.text == "(no output)\n[exit code 0]"


async def test_output_is_capped_head_and_tail(tmp_path: Path) -> None:
    command = "echo FIRST; head -c 200000 /dev/zero | tr '\\0' x; echo; echo LAST"
    out = await run_tool("run_shell", {"command": command}, _ctx(tmp_path, output_cap=2000))
    assert out.text.startswith("FIRST\n")
    assert out.text.endswith("LAST\n[exit code 0]")
    assert "bytes of output omitted" in out.text
    assert len(out.text) < 2200


async def test_colour_codes_are_stripped(tmp_path: Path) -> None:
    out = await run_tool("run_shell", {"command": "printf '\\033[31mred\\033[0m\\n'"}, _ctx(tmp_path))
    assert out.text == "red\n[exit code 0]"


async def test_timeout_kills_the_whole_group(tmp_path: Path) -> None:
    started = time.monotonic()
    command = "(sleep 0.5; touch late) & sleep 30"
    out = await run_tool("run_shell", {"command": command}, _ctx(tmp_path, shell_timeout=0.3))
    assert time.monotonic() - started < 3
    assert out.is_error and "timed out after 0.3 s" in out.text
    assert out.summary.endswith("→ timed out")
    await asyncio.sleep(0.8)
    assert not (tmp_path / "late").exists()  # the background child died with the group


async def test_cancellation_kills_the_process_and_reraises(tmp_path: Path) -> None:
    command = "touch started; (sleep 1; touch late) & wait"  # the writer is a child of the shell
    task = asyncio.create_task(run_tool("run_shell", {"command": command}, _ctx(tmp_path)))
    await _wait_for(tmp_path / "started")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(1.2)
    assert not (tmp_path / "late").exists()


async def test_timeout_from_input(tmp_path: Path) -> None:
    out = await run_tool("run_shell", {"command": "sleep 0.5", "timeout": 1}, _ctx(tmp_path, shell_timeout=0.1))
    assert out.text == "(no output)\n[exit code 0]"  # the model may ask for longer than the default


async def _background_readers_done() -> None:
    """The detached readers have read their output to its end (before the test's loop closes)."""
    await asyncio.wait_for(asyncio.gather(*list(run_shell._DETACHED_READERS)), 30)
    assert not run_shell._DETACHED_READERS


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_background_child_does_not_hold_the_call(tmp_path: Path) -> None:
    # A hang fails here instead of blocking the suite; passing means the call returned while the child runs.
    out = await asyncio.wait_for(
        run_tool("run_shell", {"command": "sleep 60 & echo $!"}, _ctx(tmp_path)), 30)
    pid = int(out.text.split("\n", 1)[0])
    try:
        assert _alive(pid)
        assert out.text == f"{pid}\n{DETACHED}\n[exit code 0]"
    finally:
        os.kill(pid, signal.SIGKILL)
    await _background_readers_done()  # the child's end of the pipe closed with it


async def test_a_background_child_may_write_more_than_a_pipe_holds_after_the_call(tmp_path: Path) -> None:
    # A server started with `&` logs on: its output is still read (and dropped), so it neither blocks on a
    # full pipe nor dies of a closed one. `head` fails on either, and `done` is then never written.
    command = "(sleep 0.3; head -c 1000000 /dev/zero && touch done) & echo started"
    out = await asyncio.wait_for(run_tool("run_shell", {"command": command}, _ctx(tmp_path)), 30)
    assert out.text.startswith("started\n[background processes still hold the output")
    await _wait_for(tmp_path / "done", 30)
    await _background_readers_done()
    assert out.text.count("started") == 1  # what came after the call is not in its result


async def test_a_slow_reader_is_not_taken_for_a_background_child(tmp_path: Path, monkeypatch) -> None:
    # On a busy machine the reader may not have reached the end of the output when the shell exits. Only a
    # process of the command's group still alive makes the output "held"; otherwise the reader finishes
    # and all of it is returned. Here the reader starts a second after the command.
    real_pump = run_shell._pump

    async def late_pump(proc, sink) -> None:
        await asyncio.sleep(1.0)
        await real_pump(proc, sink)

    monkeypatch.setattr(run_shell, "_pump", late_pump)
    out = await run_tool("run_shell", {"command": "echo FIRST; echo LAST"}, _ctx(tmp_path))
    assert out.text == "FIRST\nLAST\n[exit code 0]"


async def test_api_key_is_not_inherited(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    out = await run_tool("run_shell", {"command": "echo \"[$ANTHROPIC_API_KEY]\""}, _ctx(tmp_path))
    assert out.text == "[]\n[exit code 0]"


async def test_empty_command_is_refused(tmp_path: Path) -> None:
    out = await run_tool("run_shell", {"command": "  "}, _ctx(tmp_path))
    assert out.is_error


async def test_cancellation_while_the_process_is_being_created(tmp_path: Path, monkeypatch) -> None:
    real_spawn = asyncio.create_subprocess_shell

    async def slow_spawn(*args, **kwargs):
        proc = await real_spawn(*args, **kwargs)
        await asyncio.sleep(0.3)  # the command already runs; creation has not returned yet
        return proc

    monkeypatch.setattr(asyncio, "create_subprocess_shell", slow_spawn)
    command = "touch started; (sleep 0.6; touch late) & wait"
    task = asyncio.create_task(run_tool("run_shell", {"command": command}, _ctx(tmp_path)))
    await _wait_for(tmp_path / "started")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0.8)
    assert not (tmp_path / "late").exists()


async def test_a_front_end_may_run_the_command_elsewhere(tmp_path: Path) -> None:
    """A ShellRunner in the context (the ACP editor terminal) replaces this process's runner;
    the text the model gets is built the same way."""
    from agentls.agent.tools.run_shell import ShellRun

    calls: list[tuple[str, str, float, int]] = []

    async def elsewhere(command: str, cwd: str, timeout: float, cap: int) -> ShellRun:
        calls.append((command, cwd, timeout, cap))
        return {"ok": ShellRun("done there", 0), "slow": ShellRun("partial", None),
                "killed": ShellRun("", None, "SIGTERM")}[command]

    ctx = _ctx(tmp_path, shell=elsewhere)
    out = await run_tool("run_shell", {"command": "ok", "timeout": 7}, ctx)
    assert out.text == "done there\n[exit code 0]" and not out.is_error
    assert calls == [("ok", str(tmp_path.resolve()), 7.0, ctx.output_cap)]
    slow = await run_tool("run_shell", {"command": "slow"}, ctx)
    assert slow.is_error and slow.text.startswith("partial\n[timed out after 120 s")
    killed = await run_tool("run_shell", {"command": "killed"}, ctx)
    assert killed.text.endswith("[killed by signal SIGTERM]") and killed.summary == "$ killed → signal SIGTERM"
