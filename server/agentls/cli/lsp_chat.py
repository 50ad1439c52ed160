"""`agentls chat`: the terminal conversation as a real LSP client of a spawned `agentls serve --stdio`.

It speaks only the protocol (docs/protocol.md; names from lsp/protocol.py, answers read by lsp_wire.py):
agent/chat with streamed agent/event notifications, the session and view
methods, the status from agent/contextUsage in the prompt, and agent/confirm
answered on the terminal (or by --yes). The loop and what it prints are the
in-process REPL's (repl.py, render.py); Ctrl-C cancels the turn with
$/cancelRequest.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import uuid
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.client import LanguageClient

from .. import __version__
from ..agent.checkpoints.model import Checkpoint, RewindResult
from ..agent.commands import CustomCommand
from ..agent.endpoint_models import ModelsView
from ..agent.errors import AgentError
from ..agent.mcp.config import read_mcp_json
from ..agent.mcp.status import McpServerStatus
from ..agent.permissions import Rule
from ..agent.runtime import ActiveModel
from ..agent.store.sessions import SessionInfo
from ..agent.todos import TodoItem
from ..agent.transcript import TranscriptEntry
from ..agent.views import ContextDetails, CostDetails
from ..agent.visible import visible
from ..context.pipeline import CompactionResult
from ..context.report import ContextReport
from ..lsp import protocol
from ..lsp.transport import raw_converter
from . import lsp_wire
from .render import Renderer
from .repl import Repl, ask_yes_no_always

CANCELLED = -32800


class LspBackend:
    """The Repl's backend over LSP: every call is a request, every answer read back into core objects."""

    def __init__(self, workspace: Path, approve_all: bool, renderer: Renderer,
                 mcp_servers: dict[str, Any] | None = None) -> None:
        self.workspace = workspace
        self.mcp_servers = mcp_servers  # sent as settings.mcpServers at initialize
        self.model: str | None = None  # chosen with /model ID (sent as settings.model)
        self.approve_all = approve_all
        self.renderer = renderer
        self.client = LanguageClient("agentls-chat", __version__, converter_factory=raw_converter)
        self.turn_id: str | None = None  # msg id of the running agent/chat
        self.usage: tuple[ContextReport, ActiveModel] | None = None  # from the last agent/contextUsage
        self._stderr: asyncio.Task[None] | None = None
        self._register()

    def _register(self) -> None:
        renderer = self.renderer

        @self.client.feature(protocol.EVENT)
        def event(ls, params: dict[str, Any]) -> None:
            found = lsp_wire.event_from_wire(params) if isinstance(params, dict) else None
            if found is not None:
                renderer(found)

        @self.client.feature(protocol.CONTEXT_USAGE)
        def context_usage(ls, params: dict[str, Any]) -> None:
            if isinstance(params, dict):
                self.usage = lsp_wire.context_report_from_wire(params), lsp_wire.model_info_from_wire(params)

        @self.client.feature(types.WINDOW_SHOW_MESSAGE)
        def show_message(ls, params: Any) -> None:
            message = params.get("message", "") if isinstance(params, dict) else getattr(params, "message", "")
            kind = params.get("type") if isinstance(params, dict) else getattr(params, "type", None)
            if kind in (types.MessageType.Error, 1):
                renderer.error(str(message))
            else:
                renderer.line(str(message), "2")

        @self.client.feature(types.WINDOW_LOG_MESSAGE)
        def log_message(ls, params: Any) -> None:
            pass

        @self.client.feature(protocol.CONFIRM)
        async def confirm(ls, params: dict[str, Any]) -> dict[str, bool]:
            return await self.ask(params)

    async def ask(self, params: Any) -> dict[str, bool]:
        request = lsp_wire.approval_request_from_wire(params if isinstance(params, dict) else {})
        self.renderer.approval(request)
        if self.approve_all:
            self.renderer.note("    approved (--yes)", "2")
            return lsp_wire.confirm_result(True, False)
        approved, remember = await ask_yes_no_always(self.renderer)
        if approved and remember:
            self.renderer.rules_added(request.rules)
        return lsp_wire.confirm_result(approved, remember)

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
        return lsp_wire.initialization_options(True, self.settings() or None)

    def settings(self) -> dict[str, Any]:
        """The settings this client sends, in the agentls.* format (a change replaces them as a whole)."""
        settings: dict[str, Any] = {}
        if self.mcp_servers is not None:
            settings["mcpServers"] = self.mcp_servers
        if self.model:
            settings["model"] = self.model
        return settings

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
        """A request; an error answer becomes AgentError (its message is the server's, already safe)."""
        try:
            return await self.client.protocol.send_request_async(method, params, msg_id=msg_id)
        except JsonRpcException as error:
            if error.code == CANCELLED:
                raise asyncio.CancelledError() from None
            raise AgentError(error.message) from None

    # ---- the Backend ------------------------------------------------------------

    async def chat(self, prompt: str) -> None:
        self.turn_id = f"chat-{uuid.uuid4().hex[:8]}"
        try:
            await self.request(protocol.CHAT, {"prompt": prompt}, msg_id=self.turn_id)
        finally:
            self.turn_id = None

    def cancel(self) -> None:
        if self.turn_id is not None:
            self.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=self.turn_id))

    async def compact(self, instructions: str | None) -> CompactionResult:
        answer = await self.request(protocol.COMPACT, {"instructions": instructions} if instructions else {})
        return lsp_wire.compaction_from_wire(answer)

    async def cost(self) -> CostDetails:
        return lsp_wire.cost_from_wire(await self.request(protocol.COST))

    async def models(self) -> ModelsView:
        return lsp_wire.models_from_wire(await self.request(protocol.MODELS, {}))

    async def choose_model(self, model: str) -> list[str]:
        """`/model ID`: the next request uses it (didChangeConfiguration, no restart)."""
        self.model = model
        self.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={protocol.SETTINGS_SECTION: self.settings()}))
        return [f"model: {model} (from the next message)"]

    async def new_session(self) -> None:
        await self.request(protocol.NEW_SESSION)

    async def sessions(self, query: str) -> list[tuple[SessionInfo, bool]]:
        answer = await self.request(protocol.SESSIONS, {"query": query})
        return [lsp_wire.session_from_wire(item) for item in answer.get("sessions", [])]

    async def resume(self, session_id: str) -> list[TranscriptEntry]:
        answer = await self.request(protocol.RESUME, lsp_wire.resume_params(session_id))
        return lsp_wire.transcript_from_wire(answer.get("transcript", []))

    async def context(self) -> tuple[ContextDetails, ActiveModel]:
        answer = await self.request(protocol.CONTEXT)
        return lsp_wire.context_from_wire(answer), lsp_wire.model_info_from_wire(answer)

    async def checkpoints(self) -> list[Checkpoint]:
        answer = await self.request(protocol.CHECKPOINTS, {})
        return [lsp_wire.checkpoint_from_wire(item) for item in answer.get("checkpoints", [])]

    async def rewind(self, checkpoint_id: str, restore: str) -> RewindResult:
        answer = await self.request(protocol.REWIND, lsp_wire.rewind_params(checkpoint_id, restore))
        return lsp_wire.rewind_from_wire(answer)

    async def mcp(self) -> tuple[list[McpServerStatus], int]:
        answer = await self.request(protocol.MCP_SERVERS, {})
        return lsp_wire.mcp_servers_from_wire(answer.get("servers", [])), int(answer.get("toolListChanges", 0))

    def status(self) -> tuple[ContextReport | None, ActiveModel | None]:
        return self.usage if self.usage is not None else (None, None)

    async def todos(self) -> list[TodoItem]:
        return lsp_wire.todos_from_wire((await self.request(protocol.TODOS, {})).get("todos"))

    async def set_mode(self, mode: str) -> str:
        return str((await self.request(protocol.MODE, {"mode": mode})).get("mode"))

    async def permissions(self) -> list[Rule]:
        return lsp_wire.permissions_from_wire((await self.request(protocol.PERMISSIONS, {})).get("rules"))

    async def commands(self) -> list[CustomCommand]:
        return lsp_wire.commands_from_wire((await self.request(protocol.COMMANDS, {})).get("commands"))

    async def expand_command(self, name: str, arguments: str) -> str:
        answer = await self.request(protocol.EXPAND_COMMAND, {"name": name, "arguments": arguments})
        return str(answer.get("prompt", ""))


async def _forward(stream: asyncio.StreamReader) -> None:
    while line := await stream.readline():  # the server's log: it quotes outside strings too
        sys.stderr.write(visible(line.decode(errors="replace")))
        sys.stderr.flush()


async def chat_loop(args: argparse.Namespace) -> int:
    workspace = Path(args.workspace).resolve()
    if not workspace.is_dir():
        print(f"agentls chat: {visible(str(workspace))} is not a folder", file=sys.stderr)
        return 2
    try:
        mcp_servers = read_mcp_json(args.mcp_config) if getattr(args, "mcp_config", None) else None
    except (OSError, ValueError) as error:
        print(f"agentls chat: --mcp-config: {visible(str(error))}", file=sys.stderr)
        return 2
    backend = LspBackend(workspace, args.yes, Renderer(), mcp_servers)
    try:
        await backend.start()
    except (RuntimeError, JsonRpcException, OSError) as error:
        print(f"agentls chat: the server did not start: {visible(str(error))}", file=sys.stderr)
        await backend.client.stop()
        return 1
    try:
        if args.new:
            await backend.request(protocol.CLEAR)
        return await Repl(backend).run(f"agentls chat in {workspace} — /help for commands")
    except RuntimeError as error:  # pygls: the server process exited
        backend.renderer.error(str(error))
        return 1
    finally:
        await backend.stop()


def run_chat(args: argparse.Namespace) -> int:
    return asyncio.run(chat_loop(args))
