"""run_shell: exit codes, combined output, caps, timeouts and cancellation kill the process group."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from agentls.agent.approval import auto_approve
from agentls.agent.tools import ToolContext, run_tool
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


async def test_background_child_does_not_hold_the_call(tmp_path: Path) -> None:
    started = time.monotonic()
    out = await run_tool("run_shell", {"command": "sleep 0.8 & echo hi"}, _ctx(tmp_path))
    assert time.monotonic() - started < 0.6
    assert out.text.startswith("hi\n[background processes still hold the output")
    assert out.text.endswith("[exit code 0]")
    await asyncio.sleep(0.6)  # let the background sleep end before the loop closes


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
