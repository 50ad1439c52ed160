"""One module per agent/* request; each exposes METHOD and an async `handle(ls, params)`."""

from . import chat, clear, compact, context, cost

ALL = (chat, compact, cost, clear, context)
