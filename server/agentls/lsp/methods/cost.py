"""agent/cost: requests, tokens and dollars of this session, and why the prompt cache missed."""

from __future__ import annotations

from typing import Any

from .. import protocol
from ..errors import answers
from ..params import as_object



@answers
async def handle(ls, params: Any) -> protocol.CostResult:
    as_object(params)
    agent = await ls.host.agent()
    return protocol.cost(agent.cost(), agent.cache_report())
