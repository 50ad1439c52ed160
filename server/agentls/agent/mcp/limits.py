"""What agentls takes from one MCP server (README, "Limits").

Every tool definition is sent with every request: a server listing 10,000
tools made each turn fail with "prompt is too long" (560K tokens) without a
word about why, and one tool with a 20,000-property input schema added 150K
tokens to every request. A server over either limit is marked failed with a
message naming it and the figure; its tools are not offered, and the other
servers and the turn go on.
"""

from __future__ import annotations

import json
from typing import Any

from ..visible import excerpt
from .status import McpToolTokens

MAX_TOOLS_PER_SERVER = 1_000  # over 30 tools, tool search defers their schemas (tool_search.py)
MAX_SCHEMA_CHARS = 20_000  # one tool's input schema, as JSON
# /context warns when one server's tool definitions take more than this share of the window.
WARN_SHARE = 0.10


class OverLimit(Exception):
    """A server's tool list is over a limit; the message says which and by how much (no server name)."""


def check_limits(tools: list[Any]) -> None:
    if len(tools) > MAX_TOOLS_PER_SERVER:
        raise OverLimit(f"lists {len(tools):,} tools, more than the {MAX_TOOLS_PER_SERVER:,} agentls takes from one "
                        "server (each is sent with every request); it is not used — configure it to offer fewer")
    for tool in tools:
        schema = getattr(tool, "input_schema", None)
        size = len(json.dumps(schema, ensure_ascii=False, default=str)) if schema is not None else 0
        if size > MAX_SCHEMA_CHARS:
            raise OverLimit(f"offers the tool {excerpt(str(getattr(tool, 'name', '')))} with an input schema of "
                            f"{size:,} characters, more than the {MAX_SCHEMA_CHARS:,} agentls accepts (it is sent "
                            "with every request); the server is not used")


def tool_token_warnings(per_server: list[McpToolTokens] | tuple[McpToolTokens, ...], window: int) -> list[str]:
    """`/context`: one line per server whose tool definitions take over WARN_SHARE of the window."""
    return [f"MCP server '{server.server}': its tools take {server.tokens:,} tokens, {server.tokens / window:.0%} "
            f"of the {window:,}-token window, on every request (offer fewer: `tools: {{name: \"never\"}}` in its "
            "settings)"
            for server in per_server if window > 0 and server.tokens > WARN_SHARE * window]
