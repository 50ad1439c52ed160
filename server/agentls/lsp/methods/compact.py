"""agent/compact: summarise the conversation now (optionally steered by instructions)."""

from __future__ import annotations

import uuid
from typing import Any

from .. import protocol
from ..errors import answers
from ..params import as_object, optional_text



@answers
async def handle(ls, params: Any) -> protocol.CompactResult:
    instructions = optional_text(as_object(params), "instructions")
    host = ls.host
    agent = await host.agent()
    await host.settle_models()  # a list being fetched decides the model (runtime.settle_models)
    result = await agent.compact(instructions or None, host.event_sink(f"compact-{uuid.uuid4().hex[:8]}"))
    return protocol.compact_result(result)
