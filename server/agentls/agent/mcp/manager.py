"""All configured MCP servers, as tools the agent offers and calls.

- Lazy: nothing starts before the first turn (or an `/mcp` listing); then
  every enabled server starts in parallel, each bounded by its startup timeout.
- Stable: definitions come sorted by server, then tool name, and a server
  that fails keeps offering the tools it last listed (its next call starts it
  again), so a crash does not change the prompt prefix. Only a real change
  of a tool list changes `definitions()`; the agent applies it at a turn
  start and counts the cache break it costs.
- Approval per server and tool (`ask` by default): `always` runs, `never`
  is not even offered, `ask` goes through the agent's approval callback.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any

from ...context.store import ResultStore
from ..approval import ApprovalCallback, ApprovalRequest
from ..secrets import SECRETS
from ..tools.base import ToolOutput, error
from .config import ServerConfig
from .connection import FAILED, IDLE, STOPPED, McpConnection, McpFailure, describe, warm_sdk
from .names import qualified_name
from .results import result_text
from .status import McpServerStatus, McpToolStatus, McpToolTokens

log = logging.getLogger(__name__)

DESCRIPTION_CAP = 2_000  # characters of a server's tool description offered to the model


class McpManager:
    def __init__(self, servers: tuple[ServerConfig, ...] = (), cwd: str | None = None) -> None:
        self.cwd = cwd
        self.connections: dict[str, McpConnection] = {}
        self._stopping: set[asyncio.Task[Any]] = set()
        self.configure(servers)

    # ---- configuration -----------------------------------------------------------------

    def configure(self, servers: tuple[ServerConfig, ...]) -> set[str]:
        """New settings: unchanged servers keep running, changed or removed ones are stopped (and never
        started again: a call waiting for its approval is cancelled). The names changed or removed."""
        wanted = {config.name: config for config in servers}
        for value in (value for config in servers for value in config.secret_values()):
            SECRETS.add(value)  # scrubbed from every front end's log and messages from now on
        changed = set()
        for name, connection in list(self.connections.items()):
            if wanted.get(name) != connection.config:
                del self.connections[name]
                connection.removed.set()
                self._stop_later(connection)
                changed.add(name)
        for name in sorted(wanted):
            if name not in self.connections:
                self.connections[name] = McpConnection(wanted[name], self.cwd)
        if any(not config.disabled for config in servers):
            warm_sdk()
        return changed

    def _stop_later(self, connection: McpConnection) -> None:
        async def stop() -> None:
            await connection.stop()
            connection.close_log()

        task = asyncio.ensure_future(stop())
        self._stopping.add(task)
        task.add_done_callback(self._stopping.discard)

    def secret_values(self) -> list[str]:
        return [value for c in self.connections.values() for value in c.config.secret_values()]

    # ---- lifecycle -----------------------------------------------------------------------

    async def refresh(self, retry_failed: bool = False) -> None:
        """Start servers not running (failed ones only when asked: /mcp); list again the tools of running ones.

        Never raises: a server that fails is left FAILED with its error.
        """
        async def one(connection: McpConnection) -> None:
            try:
                if connection.state in (IDLE, STOPPED) or (retry_failed and connection.state == FAILED):
                    await connection.ensure_started()
                elif connection.running:
                    await connection.relist()
            except McpFailure as failure:
                log.info("%s", failure)

        await asyncio.gather(*(one(c) for c in self._enabled()))

    async def aclose(self) -> None:
        for connection in self.connections.values():
            connection.removed.set()
            self._stop_later(connection)
        self.connections = {}
        if self._stopping:
            await asyncio.gather(*list(self._stopping), return_exceptions=True)

    def _enabled(self) -> list[McpConnection]:
        return [c for name, c in sorted(self.connections.items()) if not c.config.disabled]

    # ---- tools ----------------------------------------------------------------------------

    def _offered(self) -> list[tuple[str, McpConnection, Any]]:
        """(qualified name, connection, SDK tool) for every tool the model may call, in a stable order."""
        found, taken = [], set()
        for connection in self._enabled():
            for tool in sorted(connection.tools, key=lambda t: t.name):
                if connection.config.approval_for(tool.name) == "never":
                    continue
                name = qualified_name(connection.config.name, tool.name)
                if name in taken:  # two names that clean up the same way: the first keeps it
                    continue
                taken.add(name)
                found.append((name, connection, tool))
        return found

    def definitions(self) -> list[dict[str, Any]]:
        return [_definition(name, tool) for name, _, tool in self._offered()]

    def owns(self, name: str) -> bool:
        return any(offered == name for offered, _, _ in self._offered())

    async def call(self, name: str, arguments: dict[str, Any], *, approve: ApprovalCallback,
                   store: ResultStore | None, tool_use_id: str) -> ToolOutput:
        target = next(((c, t) for offered, c, t in self._offered() if offered == name), None)
        if target is None:
            return error(f"Unknown MCP tool {name!r}: its server is no longer configured or no longer offers it.",
                         f"{name} (unknown)")
        connection, tool = target
        server = connection.config.name
        shown = f"{server} › {tool.name}"
        if connection.config.approval_for(tool.name) == "ask":
            request = ApprovalRequest(kind="mcp", server=server, tool=tool.name,
                                      input=json.dumps(arguments, ensure_ascii=False, indent=1),
                                      config=connection.config.fingerprint())
            approved = await _unless_removed(approve(request), connection)
            if approved is None:
                return error(f"MCP server '{server}' was removed from the settings while its approval was pending; "
                             f"{tool.name} was not called.", f"{shown} (server removed)")
            if not approved:
                return error(f"The user did not approve calling {tool.name} on MCP server '{server}'.",
                             f"{shown} (not approved)")
        try:
            result = await connection.call(tool.name, arguments)
        except McpFailure as failure:
            return error(str(failure), f"{shown} (failed)")
        except Exception as failure:  # noqa: BLE001 - an SDK surprise is still just a failed call
            return error(connection.scrub(f"MCP server '{server}': {describe(failure)}"), f"{shown} (failed)")
        text = result_text(result, tool_use_id, store)
        failed = bool(getattr(result, "is_error", False))
        return ToolOutput(text, failed, f"{shown} ({len(text):,} chars)" + (" (error)" if failed else ""))

    # ---- reports -------------------------------------------------------------------------------

    def tool_tokens(self, tokens_of_chars: Callable[[int], int]) -> list[McpToolTokens]:
        """Per server: how many tools it offers and what their definitions cost on every request."""
        by_server: dict[str, list[dict[str, Any]]] = {}
        for name, connection, tool in self._offered():
            by_server.setdefault(connection.config.name, []).append(_definition(name, tool))
        return [McpToolTokens(server, len(defs), tokens_of_chars(len(json.dumps(defs))))
                for server, defs in by_server.items()]

    def status(self) -> list[McpServerStatus]:
        """Every configured server, its state and tools (never env or header values)."""
        offered = {(c.config.name, t.name): name for name, c, t in self._offered()}
        servers = []
        for name, connection in sorted(self.connections.items()):
            config = connection.config
            tools = tuple(McpToolStatus(tool.name, offered.get((name, tool.name), ""), config.approval_for(tool.name),
                                        _first_line(tool.description or ""))
                          for tool in sorted(connection.tools, key=lambda t: t.name))
            servers.append(McpServerStatus(name, config.transport, config.shown(),
                                           "disabled" if config.disabled else connection.state,
                                           connection.error, tuple(sorted(config.env)),
                                           tuple(sorted(config.headers)), tools))
        return servers


async def _unless_removed(asking: Any, connection: McpConnection) -> bool | None:
    """The approval's answer, or None when the server is removed first (the question is then withdrawn)."""
    answer = asyncio.ensure_future(asking)
    removed = asyncio.ensure_future(connection.removed.wait())
    try:
        await asyncio.wait([answer, removed], return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (answer, removed):
            if not task.done():
                task.cancel()
    if answer.done() and not answer.cancelled():
        return bool(answer.result())
    await asyncio.wait([answer])  # the asker has seen its cancellation (an editor's agent/confirm: $/cancelRequest)
    return None


def _definition(name: str, tool: Any) -> dict[str, Any]:
    description = (tool.description or getattr(tool, "title", None) or tool.name).strip()
    if len(description) > DESCRIPTION_CAP:
        description = description[:DESCRIPTION_CAP - 1] + "…"
    schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
    return {"name": name, "description": description, "input_schema": {"type": "object", **schema}}


def _first_line(text: str, limit: int = 120) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[:limit - 1] + "…"
