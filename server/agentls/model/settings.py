"""ModelSettings: which model, where, with which key, and how patiently."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from urllib.parse import urlparse

from .. import credentials
from .catalog import FALLBACK_CATALOG, OFFLINE_DEFAULT_MODEL, Catalog, ModelInfo

# Before any catalog is read: the default-model rule applied to the offline table (catalog.py).
# Front ends choose from the endpoint's list instead (catalog.choose_model).
DEFAULT_MODEL = OFFLINE_DEFAULT_MODEL
DEMO_MODEL = "demo model (offline)"  # the name every view shows when the offline demo answers
NATIVE_HOST = "api.anthropic.com"
# The settings an error message may ask the user to change, as the LSP settings name them;
# front ends with other names (agentls.model, --model) pass their own.
SETTING_NAMES = {"model": "model", "compact_model": "compactModel", "thinking": "thinking",
                 "max_tokens": "maxTokens", "context_window": "contextWindow"}


@dataclass
class ModelSettings:
    model: str = DEFAULT_MODEL
    compact_model: str | None = None  # None → model
    base_url: str | None = None  # None → env ANTHROPIC_BASE_URL → SDK default (api.anthropic.com)
    api_key: str | None = field(default=None, repr=False)  # None → env ANTHROPIC_API_KEY; never shown
    max_tokens: int = 8192  # per reply; never more than the model's own max_tokens
    thinking: str = "auto"  # "auto" | "off" | an effort level: see thinking.py
    thinking_budget: int | None = None  # budget_tokens for models that only take a manual budget (None: 4096)
    # What the endpoint says about its models (windows, output limits, thinking); None: the offline table.
    catalog: Catalog | None = None
    # How the front end names the settings an error message asks to change (e.g. "agentls.model").
    setting_names: dict[str, str] = field(default_factory=lambda: dict(SETTING_NAMES))
    max_retries: int = 4  # retries after the first attempt
    timeout: float = 120.0  # seconds without a byte from the server (read/write/pool)
    connect_timeout: float = 10.0  # seconds to open the connection
    retry_base_delay: float = 1.0  # first backoff; doubles per retry
    retry_max_delay: float = 30.0  # cap for computed backoff (a server's retry-after is honoured as is)
    force_cache_control: bool | None = None  # None → only on the native API
    cache_placement: str = "frontier"  # or "legacy" (system, last tool, tail, previous user message)
    cache_ttl: str = "auto"  # head + frontier breakpoints: "5m", "1h", or "auto" (from the gaps between calls)
    prices: dict[str, dict[str, float]] | None = None  # pricing overrides, see pricing.py
    # `diagnostics: {previous_message_id}` on conversation calls (why the prompt cache missed): None → only on
    # the native API (other endpoints may refuse the field), True forces it (e.g. for the mock API).
    cache_diagnostics: bool | None = None
    # Deferring many MCP tools' schemas (model/tool_search.py): "auto" (Anthropic's tool search tool on the models
    # its documentation lists, agentls' search_tools elsewhere), "builtin" (the endpoint lacks the server tool)
    # or "off" (every schema in every request)
    tool_search: str = "auto"

    def __repr__(self) -> str:
        # Hand-written so the key can never leak through repr/str/logging of settings.
        shown = []
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "api_key":
                value = "<set>" if self.resolved_api_key() else None
                shown.append(f"api_key={value}")
            elif f.name == "catalog":
                shown.append(f"catalog={value.source if value is not None else None}")
            elif f.name == "setting_names":
                continue
            else:
                shown.append(f"{f.name}={value!r}")
        return f"ModelSettings({', '.join(shown)})"

    __str__ = __repr__

    @property
    def effective_compact_model(self) -> str:
        return self.compact_model or self.model

    def model_info(self, model: str | None = None) -> ModelInfo | None:
        """What the catalog (else the offline table) says about `model` (default: the model)."""
        return (self.catalog or FALLBACK_CATALOG).get(model or self.model)

    def resolved_api_key(self) -> str | None:
        return self.api_key or credentials.get("ANTHROPIC_API_KEY")

    @staticmethod
    def resolved_auth_token() -> str | None:
        """A proxy's bearer token (ANTHROPIC_AUTH_TOKEN); never shown either."""
        return credentials.get("ANTHROPIC_AUTH_TOKEN")

    def resolved_base_url(self) -> str | None:
        return self.base_url or os.environ.get("ANTHROPIC_BASE_URL") or None

    @property
    def endpoint_host(self) -> str:
        url = self.resolved_base_url()
        return (urlparse(url).hostname or url) if url else NATIVE_HOST

    @property
    def is_native_anthropic(self) -> bool:
        return self.endpoint_host == NATIVE_HOST

    @property
    def use_cache_control(self) -> bool:
        """Whether requests carry cache_control breakpoints (other endpoints may reject them)."""
        if self.force_cache_control is not None:
            return self.force_cache_control
        return self.is_native_anthropic

    @property
    def use_cache_diagnostics(self) -> bool:
        """Whether conversation calls ask for cache diagnostics (`diagnostics.previous_message_id`)."""
        return self.is_native_anthropic if self.cache_diagnostics is None else self.cache_diagnostics


FREE = {"input": 0.0, "output": 0.0, "cache_write": 0.0, "cache_read": 0.0}


def for_demo_model(settings: ModelSettings, base_url: str) -> ModelSettings:
    """Point settings at the local offline demo model; it costs nothing and is named for what it is."""
    settings.base_url = base_url
    settings.api_key = "demo"
    settings.model, settings.compact_model = DEMO_MODEL, None
    settings.prices = {**(settings.prices or {}), DEMO_MODEL: FREE}
    return settings
