"""agent/models: the endpoint's models (its Models API list, else the offline table, labelled),
with windows, output limits, thinking and prices, and which model answers."""

from __future__ import annotations

from typing import Any

from ...agent.endpoint_models import models_view
from .. import protocol
from ..errors import answers
from ..params import as_object



@answers
async def handle(ls, params: Any) -> protocol.ModelsResult:
    as_object(params)
    host = ls.host
    agent = await host.agent()  # the demo model is known to run (or not) once the agent is ready
    runtime = host.runtime
    runtime.models.refresh()  # a stale list is fetched again in the background
    await host.settle_models(listing=True)
    active = host.model_info()
    return protocol.models(models_view(runtime.models.models, active.model, host.settings.model or "", active.demo,
                                       agent.model_settings.prices))
