"""agent/cost: requests, tokens and dollars of this session."""

from __future__ import annotations

from typing import Any

from ..errors import answers
from ..params import as_object

METHOD = "agent/cost"


@answers
async def handle(ls, params: Any) -> dict[str, Any]:
    as_object(params)
    agent = await ls.host.agent()
    return dict(agent.cost())
