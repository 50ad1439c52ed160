"""agent/context: what the model sees, by category and layer, plus the placeholders in force."""

from __future__ import annotations

from typing import Any

from ..errors import answers
from ..params import as_object

METHOD = "agent/context"


@answers
async def handle(ls, params: Any) -> dict[str, Any]:
    as_object(params)
    host = ls.host
    agent = await host.agent()
    return {**agent.context(), **host.model_info()}
