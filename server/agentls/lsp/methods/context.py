"""agent/context: what the model sees, by category and layer, plus the placeholders in force."""

from __future__ import annotations

from typing import Any

from .. import protocol
from ..errors import answers
from ..params import as_object



@answers
async def handle(ls, params: Any) -> protocol.ContextResult:
    as_object(params)
    host = ls.host
    agent = await host.agent()
    return protocol.context(agent.context(), host.model_info())
