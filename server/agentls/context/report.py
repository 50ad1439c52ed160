"""What the model sees, as plain data: the figures behind every context view.

One definition of utilization (docs/protocol.md, "Utilization"): used tokens
over the usable window (window − output reserve). Front ends turn these into
their own wire shapes; nothing here knows a protocol.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Categories:
    """Tokens of the request by what they are."""

    system: int = 0  # the system prompt without the instructions below, and the mid-conversation system messages
    tools: int = 0
    instructions: int = 0  # project and user instruction files (AGENTS.md…), part of the system prompt
    user: int = 0
    assistant: int = 0
    tool_results: int = 0


@dataclass(frozen=True)
class LayerFigure:
    """How often a layer rewrote something this session, and what that saved."""

    layer: str
    count: int
    tokens_saved: int


@dataclass(frozen=True)
class ContextReport:
    window: int
    effective_window: int  # window − output reserve: what utilization is measured against
    used: int
    utilization: float
    level: str  # "ok" | "warn" | "high"
    categories: Categories
    layers: tuple[LayerFigure, ...] = ()
    next_request: str = "none"  # what preparing the next request does about its size: NEXT_REQUEST
    auto_compact_at: float | None = None  # utilization at which a summary replaces older turns; None: off


@dataclass(frozen=True)
class BindingFigures:
    """Bound thinking (issue 29): what the engine let go instead of rewriting under carried thinking.

    Kept apart from ContextReport, whose wire shape is documented field by field (docs/protocol.md)."""

    thinking_released: int = 0  # thinking blocks let go by deliberate rewrites this session (binding.py)
    thinking_released_tokens: int = 0
    cleared_by_api: tuple[str, ...] = ()  # tool_use ids the API's context editing cleared in the last request


# What preparing the next request will do about its size. (Identifiers like these and the layer
# names are shared with docs/protocol.md as they are; only field names differ between core and wire.)
NONE, COMPACT, TRIM, TOO_LARGE = "none", "compact", "trim", "tooLarge"
NEXT_REQUEST = (NONE, COMPACT, TRIM, TOO_LARGE)


@dataclass(frozen=True)
class Placeholder:
    """A rewritten block whose full text is re-readable by its ref."""

    tool_use_id: str  # "" for assistant prose and the user-message placeholders
    tool: str
    # the state it is in: truncated, budgeted, snipped, cleared, clearedInput, clearedProse, superseded,
    # clearedTextResult
    layer: str
    ref: str
    original_chars: int


__all__ = ["COMPACT", "NEXT_REQUEST", "NONE", "TOO_LARGE", "TRIM", "BindingFigures", "Categories", "ContextReport",
           "LayerFigure", "Placeholder"]
