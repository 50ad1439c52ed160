"""One module per agent/* request; each exposes METHOD and an async `handle(ls, params)`."""

from . import chat, clear, compact, context, cost, tool_result

ALL = (chat, compact, cost, clear, context, tool_result)
