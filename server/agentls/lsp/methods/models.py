"""agent/models: the models a picker offers, with windows and prices, and which one answers."""

from __future__ import annotations

from typing import Any

from .. import protocol
from ..errors import answers
from ..params import as_object

METHOD = protocol.MODELS


@answers
async def handle(ls, params: Any) -> dict[str, Any]:
    from ...model.catalog import KNOWN_MODELS, describe
    from ...model.settings import DEFAULT_MODEL

    as_object(params)
    host = ls.host
    await host.agent()  # the demo model is known to run (or not) once the agent is ready
    info = host.model_info()
    return {"models": [describe(m) for m in KNOWN_MODELS], "current": info.model,
            "configured": host.settings.model or DEFAULT_MODEL, "demo": info.demo}
