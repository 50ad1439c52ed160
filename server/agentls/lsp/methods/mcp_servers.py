"""agent/mcpServers: the configured MCP servers, their state and tools (what /mcp shows)."""

from __future__ import annotations

from typing import Any

from .. import protocol
from ..errors import answers, invalid_params
from ..params import as_object
from ...agent.secrets import SECRETS



@answers
async def handle(ls, params: Any) -> protocol.McpServersResult:
    connect = as_object(params).get("connect", True)
    if not isinstance(connect, bool):
        raise invalid_params("connect must be a boolean")
    agent = await ls.host.agent()
    if connect:
        await agent.mcp.refresh(retry_failed=True)  # each start bounded by its startup timeout
    servers = [protocol.mcp_server(status, SECRETS.scrub) for status in agent.mcp.status()]
    return {"servers": servers, "toolListChanges": agent.tool_list_changes}
