"""`agentls chat`: a terminal REPL that is a real LSP client of a spawned `agentls serve --stdio`.

It speaks only the protocol (docs/protocol.md): agent/chat with streamed
agent/event notifications, agent/compact|cost|clear|context, the status from
agent/contextUsage in the prompt, and agent/confirm answered on the terminal
(or by --yes). Reading the keyboard happens in a thread, so notifications keep
flowing while it waits; Ctrl-C cancels the running turn ($/cancelRequest).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import uuid
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.client import LanguageClient

from .. import __version__
from ..agent.mcp.config import read_mcp_json
from ..agent.mcp.report import mcp_lines
from .terminal import Terminal, pick_session
from .transport import raw_converter

HELP = """commands: /compact [instructions]  /cost  /model [ID]  /new (or /clear)  /sessions [words]  /resume N|ID  /context  /mcp  /help  /quit
Ctrl-C cancels a running turn; Ctrl-D or /quit leaves."""


async def read_line(prompt: str) -> str | None:
    """One line from stdin without blocking the event loop; None at end of input."""
    try:
        line = await asyncio.to_thread(input, prompt)
    except EOFError:
        return None
    if not sys.stdin.isatty():
        print(line, flush=True)  # piped input: echo it so the transcript reads like a session
    return line


class ChatClient:
    def __init__(self, workspace: Path, approve_all: bool, terminal: Terminal,
                 mcp_servers: dict[str, Any] | None = None) -> None:
        self.workspace = workspace
        self.mcp_servers = mcp_servers  # sent as settings.mcpServers at initialize
        self.model: str | None = None  # chosen with /model ID (sent as settings.model)
        self.approve_all = approve_all
        self.terminal = terminal
        self.client = LanguageClient("agentls-chat", __version__, converter_factory=raw_converter)
        self.turn_id: str | None = None  # msg id of the running agent/chat
        self.listed: list[dict[str, Any]] = []  # the last /sessions list, for /resume N
        self._stderr: asyncio.Task[None] | None = None
        self._register()

    def _register(self) -> None:
        terminal = self.terminal
        self.client.feature("agent/event")(lambda ls, params: terminal.event(params))

        @self.client.feature("agent/contextUsage")
        def context_usage(ls, params: dict[str, Any]) -> None:
            terminal.usage = params

        @self.client.feature(types.WINDOW_SHOW_MESSAGE)
        def show_message(ls, params: types.ShowMessageParams) -> None:
            terminal.line(params.message, "2" if params.type != types.MessageType.Error else "31")

        @self.client.feature(types.WINDOW_LOG_MESSAGE)
        def log_message(ls, params: types.LogMessageParams) -> None:
            pass

        @self.client.feature("agent/confirm")
        async def confirm(ls, params: dict[str, Any]) -> dict[str, bool]:
            return await self.ask(params)

    async def ask(self, params: dict[str, Any]) -> dict[str, bool]:
        self.terminal.approval(params)
        if self.approve_all:
            self.terminal.line("    approved (--yes)", "2")
            return {"approved": True}
        answer = await read_line("    allow? [y]es / [n]o / [a]lways this session: ")
        choice = (answer or "n").strip().lower()[:1]
        return {"approved": choice in ("y", "a"), "remember": choice == "a"}

    # ---- connection ------------------------------------------------------------

    async def start(self) -> None:
        await self.client.start_io(sys.executable, "-m", "agentls", "serve", "--stdio", env=dict(os.environ))
        server = self.client._server
        if server is not None and server.stderr is not None:
            self._stderr = asyncio.ensure_future(_forward(server.stderr))
        uri = self.workspace.as_uri()
        await self.client.initialize_async(types.InitializeParams(
            process_id=os.getpid(), root_uri=uri, client_info=types.ClientInfo("agentls-chat", __version__),
            workspace_folders=[types.WorkspaceFolder(uri=uri, name=self.workspace.name)],
            capabilities=types.ClientCapabilities(), initialization_options=self._init_options()))
        self.client.initialized(types.InitializedParams())

    def _init_options(self) -> dict[str, Any]:
        options: dict[str, Any] = {"supportsConfirm": True}
        if self.settings():
            options["settings"] = self.settings()
        return options

    def settings(self) -> dict[str, Any]:
        """The AgentSettings this client sends (a settings change replaces them as a whole)."""
        settings: dict[str, Any] = {}
        if self.mcp_servers is not None:
            settings["mcpServers"] = self.mcp_servers
        if self.model:
            settings["model"] = self.model
        return settings

    async def choose_model(self, model: str) -> None:
        """`/model ID`: the next request uses it (didChangeConfiguration, no restart)."""
        self.model = model
        self.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"agentls": self.settings()}))

    async def stop(self) -> None:
        try:
            await asyncio.wait_for(self.client.shutdown_async(None), 10)
            self.client.exit(None)
        except (asyncio.TimeoutError, JsonRpcException, RuntimeError):
            pass
        server = self.client._server
        if server is not None:
            try:
                await asyncio.wait_for(server.wait(), 10)
            except asyncio.TimeoutError:
                server.kill()
        await self.client.stop()
        if self._stderr is not None:
            self._stderr.cancel()

    async def request(self, method: str, params: Any = None, msg_id: str | None = None) -> Any:
        return await self.client.protocol.send_request_async(method, params, msg_id=msg_id)

    def cancel_turn(self) -> None:
        if self.turn_id is not None:
            self.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=self.turn_id))

    # ---- the conversation ----------------------------------------------------------

    async def chat(self, prompt: str) -> None:
        self.turn_id = f"chat-{uuid.uuid4().hex[:8]}"
        try:
            await self.request("agent/chat", {"prompt": prompt}, msg_id=self.turn_id)
        except JsonRpcException as error:
            self.terminal.end_turn()
            self.terminal.line("(cancelled)" if error.code == -32800 else f"! {error.message}", "31")
        finally:
            self.turn_id = None
        self.terminal.end_turn()

    async def command(self, line: str) -> bool:
        """Run a /command; False means leave."""
        name, _, rest = line.partition(" ")
        try:
            if name in ("/quit", "/exit"):
                return False
            if name == "/compact":
                result = await self.request("agent/compact", {"instructions": rest.strip()} if rest.strip() else {})
                self.terminal.line(f"compacted: {result['tokensBefore']:,} → {result['tokensAfter']:,} tokens")
            elif name == "/cost":
                self.terminal.cost(await self.request("agent/cost"))
            elif name == "/model":
                if rest.strip():
                    await self.choose_model(rest.strip())
                    self.terminal.line(f"model: {rest.strip()} (from the next message)")
                else:
                    self.terminal.models(await self.request("agent/models"))
            elif name in ("/clear", "/new"):
                await self.request("agent/newSession")
                self.terminal.line("new conversation (the previous one stays saved: /sessions lists it)")
            elif name == "/sessions":
                self.listed = (await self.request("agent/sessions", {"query": rest.strip()}))["sessions"]
                self.terminal.sessions(self.listed)
            elif name == "/resume":
                if not self.listed:
                    self.listed = (await self.request("agent/sessions"))["sessions"]
                session_id = pick_session(self.listed, rest)
                if session_id is None:
                    self.terminal.line("! /resume N (a number from /sessions) or a session id", "31")
                else:
                    resumed = await self.request("agent/resume", {"sessionId": session_id})
                    self.terminal.line(f"resumed {session_id}")
                    self.terminal.transcript(resumed["transcript"])
            elif name == "/context":
                self.terminal.context(await self.request("agent/context"))
            elif name == "/mcp":
                listing = await self.request("agent/mcpServers", {})
                for row in mcp_lines(listing["servers"], listing["toolListChanges"]):
                    self.terminal.line(row)
            else:
                self.terminal.line(HELP)
        except JsonRpcException as error:
            self.terminal.line(f"! {error.message}", "31")
        return True


async def _forward(stream: asyncio.StreamReader) -> None:
    while line := await stream.readline():
        sys.stderr.write(line.decode(errors="replace"))
        sys.stderr.flush()


async def chat_loop(args: argparse.Namespace) -> int:
    workspace = Path(args.workspace).resolve()
    if not workspace.is_dir():
        print(f"agentls chat: {workspace} is not a folder", file=sys.stderr)
        return 2
    terminal = Terminal()
    try:
        mcp_servers = read_mcp_json(args.mcp_config) if getattr(args, "mcp_config", None) else None
    except (OSError, ValueError) as error:
        print(f"agentls chat: --mcp-config: {error}", file=sys.stderr)
        return 2
    chat = ChatClient(workspace, args.yes, terminal, mcp_servers)
    try:
        await chat.start()
    except (RuntimeError, JsonRpcException, OSError) as error:
        print(f"agentls chat: the server did not start: {error}", file=sys.stderr)
        await chat.client.stop()
        return 1
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, chat.cancel_turn)
    except (NotImplementedError, RuntimeError):
        pass
    try:
        if args.new:
            await chat.request("agent/clear")
        terminal.line(f"agentls chat in {workspace} — /help for commands", "2")
        while True:
            line = await read_line(terminal.prompt())
            if line is None:
                terminal.line("")
                break
            line = line.strip()
            if not line:
                continue
            try:
                if line.startswith("/"):
                    if not await chat.command(line):
                        break
                else:
                    await chat.chat(line)
            except RuntimeError as error:  # pygls: the server process exited
                terminal.line(f"! {error}", "31")
                return 1
    finally:
        try:
            loop.remove_signal_handler(signal.SIGINT)
        except (NotImplementedError, RuntimeError):
            pass
        await chat.stop()
    return 0


def run_chat(args: argparse.Namespace) -> int:
    return asyncio.run(chat_loop(args))
