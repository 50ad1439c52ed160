"""The endpoint's models for a front end: the catalog in use, the model that answers, what to tell.

The runtime (runtime.py) asks `resolve()` for concrete ModelSettings whenever the settings
change or a list arrives: the catalog is the endpoint's own list once fetched (models_api.py), else
the offline table; the model is the configured one when the endpoint offers it, else the
default rule's (catalog.choose_model), with a warning told once. The demo model needs no
Models API: it is offline by definition, so the picker shows the offline table, labelled.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..model.catalog import Catalog, ModelInfo
from ..model.pricing import Price, price_for

if TYPE_CHECKING:
    from ..model.catalog import ModelChoice
    from ..model.settings import ModelSettings

# A turn with a configured model waits this long at most for a list being fetched (the endpoint's first
# answer, or the one after a base URL / key change): the list only checks that choice. A turn whose model the
# list decides waits for the fetch to end (runtime.settle_models); a failed list falls back.
CATALOG_WAIT = 10.0
# How messages name the settings (VS Code's names; other front ends pass their own, e.g. the
# terminal's `--model`).
SETTING_NAMES = {"model": "agentls.model", "compact_model": "agentls.compactModel", "thinking": "agentls.thinking",
                 "max_tokens": "agentls.maxTokens", "context_window": "agentls.contextWindow"}


@dataclass(frozen=True)
class ModelOffer:
    model: ModelInfo
    price: Price | None  # None: price unknown (tokens are counted, no other model's price borrowed)


@dataclass(frozen=True)
class ModelsView:
    """What a picker and `/model` show: the list, whose it is, which model answers and which is set."""

    offers: tuple[ModelOffer, ...]
    source: str  # catalog.ENDPOINT | catalog.FALLBACK
    note: str
    current: str
    configured: str  # "" when none is set (the default rule chooses)
    demo: bool


def models_view(catalog: Catalog, current: str, configured: str, demo: bool,
                prices: Mapping[str, Mapping[str, float]] | None) -> ModelsView:
    return ModelsView(tuple(ModelOffer(m, price_for(m.id, prices)) for m in catalog.models), catalog.source,
                      catalog.note, current, configured, demo)


class EndpointModels:
    def __init__(self, on_update: Callable[[], None], setting_names: dict[str, str] | None = None) -> None:
        from ..model.catalog import FALLBACK_CATALOG
        from ..model.models_api import ModelCatalog

        self.catalog = ModelCatalog(on_update=lambda _catalog: on_update())
        self.models: Catalog = FALLBACK_CATALOG  # the list agent/models shows
        self.choice: ModelChoice | None = None
        self.thinking_note = ""  # why agentls.thinking cannot be followed as set for this model
        self._endpoint: ModelSettings | None = None  # settings of the endpoint whose list is in use
        self._told: set[str] = set()
        self.setting_names = dict(setting_names or SETTING_NAMES)

    def resolve(self, configured: str | None, base: ModelSettings, *, demo: bool) -> ModelSettings:
        """`base` with the model that answers and the catalog that describes it (the list known now:
        `fetch()` asks the endpoint for a newer one)."""
        from ..model.catalog import DEMO_NOTE, ModelChoice, choose_model, fallback_catalog
        from ..model.thinking import thinking_request

        base = replace(base, setting_names=dict(self.setting_names))
        if demo:
            self._endpoint = None
            self.models = fallback_catalog(DEMO_NOTE)
            self.choice = ModelChoice(base.model, None, configured)
            self.thinking_note = ""
            return base
        self._endpoint = base
        listed = self.catalog.current(base)
        self.models = listed if listed is not None else fallback_catalog(
            f"listing the models of {base.endpoint_host}…; until then this is agentls' offline list",
            base.endpoint_host)
        self.choice = choose_model(configured, self.models, self.setting_names["model"])
        info = self.choice.info
        self.thinking_note = thinking_request(base.thinking, info, max_tokens=base.max_tokens,
                                              budget=base.thinking_budget,
                                              max_output=info.max_tokens if info is not None else None).note
        return replace(base, model=self.choice.model, catalog=self.models)

    def fetch(self) -> None:
        """Fetch the list of the endpoint last resolved (none for the demo model), unless cached and fresh."""
        if self._endpoint is not None:
            self.catalog.refresh(self._endpoint)

    @property
    def info(self) -> ModelInfo | None:
        return self.choice.info if self.choice is not None else None

    def fetching(self) -> bool:
        return self._endpoint is not None and self.catalog.fetching(self._endpoint)

    async def settle(self, seconds: float | None = CATALOG_WAIT) -> None:
        """Wait (at most `seconds`; None: until the fetch ends) for the list of the endpoint in use if it is
        being fetched."""
        if self.fetching():
            await self.catalog.wait(self._endpoint, seconds)  # type: ignore[arg-type]

    def refresh(self) -> None:
        """A look at the list (agent/models): fetch it again in the background when it is stale."""
        if self._endpoint is not None:
            self.catalog.refresh(self._endpoint)

    def untold_warnings(self) -> list[str]:
        """The choice's warning and the thinking note, each the first time it applies."""
        found = [self.choice.warning if self.choice is not None else "",
                 f"{self.setting_names['thinking']}: {self.thinking_note}" if self.thinking_note else ""]
        fresh = [w for w in found if w and w not in self._told]
        self._told.update(fresh)
        return fresh

    async def aclose(self) -> None:
        await self.catalog.aclose()
