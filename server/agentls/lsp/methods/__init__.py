"""One module per agent/* request; each exposes METHOD and an async `handle(ls, params)`."""

from . import chat, clear, compact, context, cost, mcp_servers

ALL = (chat, compact, cost, clear, context, mcp_servers)
