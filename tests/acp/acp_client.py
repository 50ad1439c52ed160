"""The ACP tests' client: the SDK's own client side (`acp.spawn_agent_process`) driving `agentls acp`.

`EditorClient` is what an ACP editor would be: it records every session/update,
answers session/request_permission with a chosen option, and, when the test
says it offers them, serves fs/* (with unsaved buffers of its own) and
terminal/* (running commands itself).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import acp
from acp import schema
from agentls.mock_api import MockAnthropicServer
from forkserver import agentls_command

SECRET = "sk-ant-acp-test-DISTINCTIVE-51c0de"
EXIT_SECONDS = 30.0  # after stdin closes, before the SDK's client side sends SIGTERM (a loaded machine is slow)


def agent_env(tmp_path: Path, mock_api: MockAnthropicServer | None, **extra: str) -> dict[str, str]:
    """The agent's environment: its own data and config folders, the mock API and a key."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env["AGENTLS_DATA_DIR"] = str(tmp_path / "data")
    # The user's config folder (settings.json, AGENTS.md, commands/): agent/userconfig.py reads the override.
    env["AGENTLS_CONFIG_DIR"] = str(tmp_path / "config" / "agentls")
    if mock_api is not None:
        env["ANTHROPIC_BASE_URL"] = mock_api.base_url
        env["ANTHROPIC_API_KEY"] = SECRET
    env.update(extra)
    return env


@dataclass
class Terminal:
    process: asyncio.subprocess.Process
    output: bytearray = field(default_factory=bytearray)
    reader: asyncio.Task[None] | None = None
    released: bool = False


class EditorClient:
    """An ACP client (the SDK's `acp.Client` protocol), recording what the agent sends."""

    def __init__(self) -> None:
        self.updates: list[tuple[str, Any]] = []
        self.permissions: list[schema.RequestPermissionRequest] = []
        self.answer: str | None = "allow_once"  # option id, or None: the "cancelled" outcome
        self.permission_gate: asyncio.Event | None = None  # set: answer; unset: keep the request waiting
        self.buffers: dict[str, str] = {}  # path → unsaved text the editor holds
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []
        self.terminals: dict[str, Terminal] = {}
        self.terminal_env: list[dict[str, str]] = []

    # ---- what the agent calls ---------------------------------------------------------

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))

    async def request_permission(self, session_id: str, tool_call: schema.ToolCallUpdate,
                                 options: list[schema.PermissionOption],
                                 **kwargs: Any) -> schema.RequestPermissionResponse:
        self.permissions.append(schema.RequestPermissionRequest(session_id=session_id, tool_call=tool_call,
                                                                options=options))
        if self.permission_gate is not None:
            await self.permission_gate.wait()
        if self.answer is None:
            return schema.RequestPermissionResponse(outcome=schema.DeniedOutcome(outcome="cancelled"))
        return schema.RequestPermissionResponse(
            outcome=schema.AllowedOutcome(outcome="selected", option_id=self.answer))

    async def read_text_file(self, session_id: str, path: str, line: int | None = None, limit: int | None = None,
                             **kwargs: Any) -> schema.ReadTextFileResponse:
        self.reads.append(path)
        text = self.buffers[path] if path in self.buffers else Path(path).read_text()
        return schema.ReadTextFileResponse(content=text)

    async def write_text_file(self, session_id: str, path: str, content: str,
                              **kwargs: Any) -> schema.WriteTextFileResponse:
        self.writes.append((path, content))
        self.buffers[path] = content  # the editor holds it (unsaved), as an editor with the file open would
        return schema.WriteTextFileResponse()

    async def create_terminal(self, session_id: str, command: str, args: list[str] | None = None,
                              env: list[schema.EnvVariable] | None = None, cwd: str | None = None,
                              output_byte_limit: int | None = None, **kwargs: Any) -> schema.CreateTerminalResponse:
        variables = {item.name: item.value for item in env or []}
        self.terminal_env.append(variables)
        process = await asyncio.create_subprocess_exec(command, *(args or []), cwd=cwd, env={**os.environ, **variables},
                                                       stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
                                                       start_new_session=True)
        terminal = Terminal(process)

        async def pump() -> None:
            assert process.stdout is not None
            while chunk := await process.stdout.read(4096):
                terminal.output += chunk

        terminal.reader = asyncio.ensure_future(pump())
        terminal_id = f"term-{len(self.terminals) + 1}"
        self.terminals[terminal_id] = terminal
        return schema.CreateTerminalResponse(terminal_id=terminal_id)

    async def terminal_output(self, session_id: str, terminal_id: str, **kwargs: Any) -> schema.TerminalOutputResponse:
        terminal = self.terminals[terminal_id]
        if terminal.process.returncode is not None and terminal.reader is not None:
            await terminal.reader
        code = terminal.process.returncode
        status = schema.TerminalExitStatus(exit_code=code) if code is not None else None
        return schema.TerminalOutputResponse(output=terminal.output.decode(errors="replace"), truncated=False,
                                             exit_status=status)

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str,
                                     **kwargs: Any) -> schema.WaitForTerminalExitResponse:
        code = await self.terminals[terminal_id].process.wait()
        if code < 0:
            return schema.WaitForTerminalExitResponse(exit_code=None, signal=signal.Signals(-code).name)
        return schema.WaitForTerminalExitResponse(exit_code=code)

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> schema.KillTerminalResponse:
        process = self.terminals[terminal_id].process
        if process.returncode is None:
            os.killpg(process.pid, 9)
            await process.wait()
        return schema.KillTerminalResponse()

    async def release_terminal(self, session_id: str, terminal_id: str,
                               **kwargs: Any) -> schema.ReleaseTerminalResponse:
        self.terminals[terminal_id].released = True
        return schema.ReleaseTerminalResponse()

    # ---- what the tests read ------------------------------------------------------------

    def of(self, kind: str, session_id: str | None = None) -> list[Any]:
        """The updates of one kind (`sessionUpdate`), in order."""
        return [u for s, u in self.updates if u.session_update == kind and (session_id is None or s == session_id)]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of(kind) if isinstance(u.content, schema.TextContentBlock))

    def kinds(self) -> list[str]:
        return [u.session_update for _, u in self.updates]


def capabilities(*, fs: bool = False, terminal: bool = False, compaction: bool = False) -> schema.ClientCapabilities:
    return schema.ClientCapabilities(
        fs=schema.FileSystemCapabilities(read_text_file=fs, write_text_file=fs), terminal=terminal,
        session=schema.ClientSessionCapabilities(compaction=schema.CompactionCapabilities()) if compaction else None)


@contextlib.asynccontextmanager
async def running_agent(client: EditorClient, env: dict[str, str], *, observers: list[Any] | None = None,
                        **offers: bool) -> AsyncIterator[tuple[Any, asyncio.subprocess.Process]]:
    """`agentls acp` as a child process, initialized; (the SDK's connection, the process)."""
    kwargs: dict[str, Any] = {"observers": observers} if observers else {}
    # stderr inherited (pytest shows it on failure; an unread pipe could fill up), and time to exit by itself
    transport = {"stderr": None, "shutdown_timeout": EXIT_SECONDS}
    async with acp.spawn_agent_process(client, *agentls_command("acp"), env=env, transport_kwargs=transport,
                                       **kwargs) as (conn, process):
        await asyncio.wait_for(conn.initialize(protocol_version=acp.PROTOCOL_VERSION,
                                               client_capabilities=capabilities(**offers)), 60)
        yield conn, process


def alive(pid: int) -> bool:
    """Whether a process with this pid exists (signal 0 checks without sending anything)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def prompt(text: str) -> list[schema.TextContentBlock]:
    return [schema.TextContentBlock(type="text", text=text)]


async def wait_until(predicate: Any, timeout: float = 30.0) -> Any:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("timed out waiting for a condition")
        await asyncio.sleep(0.01)
