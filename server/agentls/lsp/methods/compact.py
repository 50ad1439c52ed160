"""agent/compact: summarise the conversation now (optionally steered by instructions)."""

from __future__ import annotations

import uuid
from typing import Any

from ..errors import answers, internal
from ..params import as_object, optional_text

METHOD = "agent/compact"


@answers
async def handle(ls, params: Any) -> dict[str, Any]:
    instructions = optional_text(as_object(params), "instructions")
    host = ls.host
    agent = await host.agent()
    await host.settle_models()  # a list being fetched decides the model (bounded wait)
    from ...agent.loop import AgentError

    with host.exclusive("compaction"):
        try:
            result = await agent.compact(instructions or None, host.event_sink(f"compact-{uuid.uuid4().hex[:8]}"))
        except AgentError as error:
            raise internal(str(error)) from None
    return {"tokensBefore": result.tokens_before, "tokensAfter": result.tokens_after, "summary": result.summary,
            "compacted": result.compacted, "note": result.note}
