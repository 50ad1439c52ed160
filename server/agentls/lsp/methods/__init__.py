"""One module per agent/* request; each exposes METHOD and an async `handle(ls, params)`."""

from . import chat, checkpoints, clear, compact, context, cost, mcp_servers, models, project, sessions, tool_result

ALL = (chat, compact, cost, clear, context, models, tool_result, mcp_servers)
# The session methods are one family over one store: one module, several methods (HANDLERS).
FAMILIES = (sessions, checkpoints, project)
