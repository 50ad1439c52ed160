"""agent/mcpServers: the configured MCP servers, their state and tools (what /mcp shows)."""

from __future__ import annotations

from typing import Any

from ..errors import answers, invalid_params
from ..params import as_object
from ..redact import SECRETS

METHOD = "agent/mcpServers"


@answers
async def handle(ls, params: Any) -> dict[str, Any]:
    connect = as_object(params).get("connect", True)
    if not isinstance(connect, bool):
        raise invalid_params("connect must be a boolean")
    agent = await ls.host.agent()
    if connect:
        await agent.mcp.refresh(retry_failed=True)  # each start bounded by its startup timeout
    servers = agent.mcp.status()
    for server in servers:
        server["error"] = SECRETS.scrub(server["error"])
    return {"servers": servers, "toolListChanges": agent.tool_list_changes}
