"""Model access: the anthropic SDK client, streaming events, retries, cache breakpoints, pricing.

The names below are loaded on first use: importing `agentls.model.settings`
or `agentls.model.pricing` must not import the anthropic SDK (slow to import;
the language server answers `initialize` before it is needed).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "with_cache_breakpoints": ".cache",
    "ModelClient": ".client",
    "ModelError": ".errors",
    "BindingRetry": ".events", "EventHandler": ".events", "ModelEvent": ".events", "Retrying": ".events",
    "TextDelta": ".events", "ThinkingDelta": ".events", "ToolUseStarted": ".events",
    "CostTracker": ".pricing", "Price": ".pricing", "cost_usd": ".pricing", "price_for": ".pricing",
    "ModelResponse": ".response", "Usage": ".response",
    "DEFAULT_MODEL": ".settings", "ModelSettings": ".settings",
}

# Literal, so that linters see the TYPE_CHECKING imports below as re-exports (a test keeps it equal to _EXPORTS).
__all__ = [
    "BindingRetry", "CostTracker", "DEFAULT_MODEL", "EventHandler", "ModelClient", "ModelError", "ModelEvent",
    "ModelResponse", "ModelSettings", "Price", "Retrying", "TextDelta", "ThinkingDelta", "ToolUseStarted", "Usage",
    "cost_usd", "price_for", "with_cache_breakpoints",
]

if TYPE_CHECKING:
    from .cache import with_cache_breakpoints
    from .client import ModelClient
    from .errors import ModelError
    from .events import BindingRetry, EventHandler, ModelEvent, Retrying, TextDelta, ThinkingDelta, ToolUseStarted
    from .pricing import CostTracker, Price, cost_usd, price_for
    from .response import ModelResponse, Usage
    from .settings import DEFAULT_MODEL, ModelSettings


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value
