"""agent/models: the endpoint's models (its Models API list, else the offline table, labelled),
with windows, output limits, thinking and prices, and which model answers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from ..errors import answers
from ..params import as_object

if TYPE_CHECKING:
    from ...model.catalog import Catalog, ModelInfo

METHOD = "agent/models"


def _wire(model: "ModelInfo", prices: Mapping[str, Mapping[str, float]] | None) -> dict[str, Any]:
    """One ModelInfo of docs/protocol.md; a price the table does not know is null ("price unknown")."""
    from ...model.pricing import price_for

    price = price_for(model.id, prices)
    return {"id": model.id, "label": model.label, "contextWindow": model.max_input_tokens,
            "maxOutput": model.max_tokens, "createdAt": model.created_at, "thinking": model.thinking,
            "efforts": list(model.efforts), "lifecycle": model.lifecycle,
            "inputPerMTok": price.input if price else None, "outputPerMTok": price.output if price else None,
            "cacheReadPerMTok": price.cache_read if price else None,
            "cacheWritePerMTok": price.cache_write if price else None}


def listing(catalog: "Catalog", current: str, configured: str, demo: bool,
            prices: Mapping[str, Mapping[str, float]] | None) -> dict[str, Any]:
    """The ModelsResult of docs/protocol.md (also what the REPL's /model shows)."""
    return {"models": [_wire(m, prices) for m in catalog.models], "source": catalog.source, "note": catalog.note,
            "current": current, "configured": configured, "demo": demo}


@answers
async def handle(ls, params: Any) -> dict[str, Any]:
    as_object(params)
    host = ls.host
    agent = await host.agent()  # the demo model is known to run (or not) once the agent is ready
    host.models.refresh()  # a stale list is fetched again in the background
    await host.settle_models()
    info = host.model_info()
    return listing(host.models.models, info["model"], host.settings.model or "", info["demo"],
                   agent.model_settings.prices)
