"""Model access: the anthropic SDK client, streaming events, retries, cache breakpoints, pricing."""

from .cache import with_cache_breakpoints
from .client import ModelClient
from .errors import ModelError
from .events import EventHandler, ModelEvent, Retrying, TextDelta, ThinkingDelta, ToolUseStarted
from .pricing import CostTracker, Price, cost_usd, price_for
from .response import ModelResponse, Usage
from .settings import DEFAULT_MODEL, ModelSettings

__all__ = [
    "DEFAULT_MODEL",
    "CostTracker",
    "EventHandler",
    "ModelClient",
    "ModelError",
    "ModelEvent",
    "ModelResponse",
    "ModelSettings",
    "Price",
    "Retrying",
    "TextDelta",
    "ThinkingDelta",
    "ToolUseStarted",
    "Usage",
    "cost_usd",
    "price_for",
    "with_cache_breakpoints",
]
