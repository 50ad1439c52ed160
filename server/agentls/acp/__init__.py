"""`agentls acp`: the agent as an Agent Client Protocol agent (JSON-RPC over stdio), for any ACP editor.

Zed, JetBrains IDEs, Neovim (CodeCompanion, avante.nvim), Emacs (agent-shell)
and others host ACP agents; this front end puts the same core behind that
protocol as the language server puts behind LSP: the same AgentRuntime,
store, pipeline, tools, approvals and settings. Built on the official SDK
(`agent-client-protocol`, imported as `acp`). It imports the core only,
never agentls.lsp or agentls.cli.

    transport.py   stdio lines, unreadable ones answered (JSON-RPC errors)
    agent.py       the ACP Agent: initialize, session/*, prompt, cancel
    session.py     one session: AgentRuntime + the client's files, terminal, permissions
    stream.py      the core's events → session/update
    protocol.py    the one mapping between core types and the ACP schema
    permissions.py session/request_permission as the ApprovalPolicy's asker
    client_fs.py   Workspace over fs/read_text_file, fs/write_text_file
    client_terminal.py  run_shell over terminal/*
    commands.py    /compact, /cost, /context, /new and the custom commands (.agents/commands/)
    settings.py    settings files (user config folder, the workspace's .agents/settings.json)
"""

from __future__ import annotations

import argparse
import asyncio
import logging
from collections.abc import Callable


def run_acp(args: argparse.Namespace) -> int:
    """Serve ACP on stdin/stdout until the client closes stdin."""
    from .. import credentials
    from ..agent.secrets import log_to_stderr

    credentials.take_from_environment()  # the agent's shell commands are our children
    log_to_stderr(logging.DEBUG if args.verbose else logging.WARNING, "agentls acp:")
    return asyncio.run(_serve())


def _load_sdk_meanwhile() -> None:
    """Import the model SDK (the slowest import) in a thread while the client initializes.

    Only once this front end's own modules are imported: two threads entering the agent's modules at
    different points can each meet the other's half-imported module (a package and its submodule),
    which failed a start with "partially initialized module … has no attribute" (a fresh-clone run)."""
    import threading

    from ..model.client import load_sdk

    threading.Thread(target=load_sdk, name="acp-sdk", daemon=True).start()


async def _serve() -> int:
    from typing import cast

    import acp

    from .agent import AcpAgent
    from .transport import stdio_transport

    _load_sdk_meanwhile()

    transport = await stdio_transport()
    agent = AcpAgent(after_answer=transport.after)
    stopped = _stop_on_signals()
    try:
        # The SDK routes what AcpAgent defines and answers -32601 for the rest of its Agent protocol.
        await acp.run_agent(cast(acp.Agent, agent), transport)
    except asyncio.CancelledError:
        if not stopped():
            raise
    finally:
        await agent.aclose()  # sessions closed: their leases released, so a restarted agent loads them at once
    return 0


def _stop_on_signals() -> Callable[[], bool]:
    """SIGTERM and SIGHUP (an editor stopping or restarting its agent) end the serving task, so the sessions
    close as they do when stdin closes, rather than the process dying with their leases held. Whether it was
    a signal that ended it."""
    import signal

    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    received: list[int] = []

    def stop(signum: int) -> None:
        received.append(signum)
        if task is not None:
            task.cancel()

    for signum in (signal.SIGTERM, signal.SIGHUP):
        try:
            loop.add_signal_handler(signum, stop, signum)
        except (NotImplementedError, RuntimeError):  # Windows: the default (the process ends)
            pass
    return lambda: bool(received)
