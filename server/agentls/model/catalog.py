"""The models a picker offers: known Anthropic models, their context windows and prices.

Any other model id (another endpoint, a newer model) is allowed as well; its
window is looked up by name fragment and falls back to DEFAULT_WINDOW.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping

from .pricing import price_for
from .settings import DEFAULT_MODEL

DEFAULT_WINDOW = 200_000


@dataclass(frozen=True)
class KnownModel:
    id: str
    label: str
    window: int


KNOWN_MODELS: tuple[KnownModel, ...] = (
    KnownModel(DEFAULT_MODEL, "Claude Sonnet 5.5", 200_000),
    KnownModel("claude-opus-4-5", "Claude Opus 4.5", 200_000),
    KnownModel("claude-sonnet-4-5", "Claude Sonnet 4.5", 200_000),
    KnownModel("claude-haiku-4-5", "Claude Haiku 4.5", 200_000),
    KnownModel("claude-opus-4-1", "Claude Opus 4.1", 200_000),
)
# Windows of models outside the list, by name fragment (first match wins).
WINDOW_BY_FRAGMENT: tuple[tuple[str, int], ...] = (
    ("deepseek", 128_000),
    ("claude", 200_000),
)


def window_for(model: str) -> int:
    name = model.lower()
    known = next((m.window for m in KNOWN_MODELS if m.id == name), None)
    if known is not None:
        return known
    return next((window for fragment, window in WINDOW_BY_FRAGMENT if fragment in name), DEFAULT_WINDOW)


def describe(model: KnownModel, overrides: Mapping[str, Mapping[str, float]] | None = None) -> dict:
    """One ModelInfo of `agent/models` (docs/protocol.md)."""
    price = price_for(model.id, overrides)
    return {"id": model.id, "label": model.label, "contextWindow": model.window,
            "inputPerMTok": price.input, "outputPerMTok": price.output,
            "cacheReadPerMTok": price.cache_read, "cacheWritePerMTok": price.cache_write}
