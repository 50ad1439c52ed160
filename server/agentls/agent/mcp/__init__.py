"""MCP servers as agent tools (the official `mcp` SDK, imported only when a server starts).

config.py parses `agentls.mcpServers`; connection.py runs one server;
manager.py offers their tools under `mcp__<server>__<tool>` names (names.py)
and turns call results into tool_result text (results.py).
"""

from .config import ServerConfig, parse_servers
from .manager import McpManager
from .names import is_mcp_name

__all__ = ["McpManager", "ServerConfig", "is_mcp_name", "parse_servers"]
