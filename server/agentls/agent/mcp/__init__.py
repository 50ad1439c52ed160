"""MCP servers as agent tools (the official `mcp` SDK, imported only when a server starts).

config.py parses `agentls.mcpServers` (light: the LSP layer imports it before
the agent loads); connection.py runs one server; manager.py offers their
tools under `mcp__<server>__<tool>` names (names.py) and turns call results
into tool_result text (results.py).
"""
