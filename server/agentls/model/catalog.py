"""Which models an endpoint offers: ModelInfo, the offline fallback table, the default-model rule.

The endpoint's Models API (`GET /v1/models`, read by models_api.py) is the
catalog: its ids, windows (`max_input_tokens`), output limits (`max_tokens`)
and thinking capabilities. The table below is used only when there is no such
list: an Anthropic-compatible endpoint without a Models API, or the offline
demo model. Everything here is pure data and pure functions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

ENDPOINT, FALLBACK = "endpoint", "fallback"

# Thinking types a model can take on a request (`thinking.type`), and effort levels
# (`output_config.effort`), as the Models API reports them under `capabilities`
# (field names from the anthropic SDK's ModelCapabilities / ThinkingTypes / EffortCapability).
THINKING_TYPES = ("adaptive", "enabled", "disabled", "between_tools")
EFFORT_LEVELS = ("low", "medium", "high", "xhigh", "max")
# Server-side context editing strategies (`context_management.edits[].type`), as `capabilities.context_management`
# names them (SDK BetaContextManagementCapability).
CONTEXT_EDITS = ("clear_tool_uses_20250919", "clear_thinking_20251015", "compact_20260112")

# The model line of the balanced tier ("the best combination of speed and intelligence",
# https://platform.claude.com/docs/en/models/sonnet-5-5/overview): the default's first choice.
BALANCED_LINE = "sonnet"
QUOTED_ID_CHARS = 80  # of a configured model id quoted back in a warning


@dataclass(frozen=True)
class ModelInfo:
    """One model as the Models API describes it (snake_case, as the API names the fields)."""

    id: str
    display_name: str = ""
    created_at: str = ""  # RFC 3339 from the API; "" when unknown (the fallback table's older rows)
    max_input_tokens: int | None = None  # the model's context window
    max_tokens: int | None = None  # the largest max_tokens a request may ask for
    thinking_types: frozenset[str] = frozenset()  # the `thinking.type` values the model accepts
    efforts: tuple[str, ...] = ()  # the `output_config.effort` levels it accepts
    line: str | None = None  # "sonnet", "opus", … when the endpoint says; never inferred from the id
    lifecycle: str = "active"  # "active" | "deprecated" (still callable) | "retired"
    # on-demand server-side compaction (the top-level `compaction: {type: "summarize"}` parameter)
    compaction: bool = False
    context_editing: frozenset[str] = frozenset()  # the CONTEXT_EDITS strategies `context_management` takes

    @property
    def label(self) -> str:
        return self.display_name or self.id

    @property
    def thinking(self) -> str:
        """How this model thinks when asked: "adaptive", "manual" (budget_tokens only) or "none"."""
        if "adaptive" in self.thinking_types:
            return "adaptive"
        if "enabled" in self.thinking_types:
            return "manual"
        return "none"

    def in_line(self, line: str) -> bool:
        """Whether the model belongs to `line`: the endpoint's `line` when it reports one,
        else the id (endpoints without lines name the tier in the id, e.g. claude-sonnet-5-5)."""
        if self.line is not None:
            return self.line == line
        return f"-{line}-" in f"-{self.id.lower()}-"


@dataclass(frozen=True)
class Catalog:
    """The models a picker offers, where the list came from, and why when it is the fallback."""

    models: tuple[ModelInfo, ...]
    source: str  # ENDPOINT | FALLBACK
    note: str = ""  # why the fallback is used ("" for the endpoint's own list)
    endpoint: str = ""  # the host the list belongs to (for messages)
    _by_id: dict[str, ModelInfo] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._by_id.update((m.id, m) for m in self.models)

    def get(self, model: str) -> ModelInfo | None:
        """The model named `model`: its id, or an alias of a dated snapshot the list names
        (`claude-x-1` for `claude-x-1-20260101`: the API lists snapshots, callers may use aliases)."""
        found = self._by_id.get(model)
        if found is not None:
            return found
        return next((m for m in self.models if _is_snapshot_of(m.id, model)), None)

    @property
    def ids(self) -> list[str]:
        return [m.id for m in self.models]


def _is_snapshot_of(model_id: str, alias: str) -> bool:
    rest = model_id[len(alias):] if model_id.startswith(alias + "-") else ""
    return len(rest) == 9 and rest[1:].isdigit()


# ---------------------------------------------------------------- the default-model rule

def default_model(models: Sequence[ModelInfo]) -> str | None:
    """The model used when none is configured, from the endpoint's list:

    1. the newest active model of the balanced line (Sonnet);
    2. else the newest active model;
    3. else the newest model listed (deprecated models are still callable).

    "Newest" is the latest `created_at`; models without a date (and ties) keep the
    list's order, which the Models API gives newest first. None for an empty list.
    """
    if not models:
        return None
    active = [m for m in models if m.lifecycle == "active"]
    for pool in ([m for m in active if m.in_line(BALANCED_LINE)], active, list(models)):
        if pool:
            return _newest(pool).id
    return None


def _newest(models: Iterable[ModelInfo]) -> ModelInfo:
    # max() keeps the first of equal keys: among equal dates (or none) the earlier entry wins
    return max(models, key=lambda m: m.created_at or "")


# ---------------------------------------------------------------- the offline fallback table

_EDITS = frozenset({"clear_tool_uses_20250919", "clear_thinking_20251015"})


def _fallback(id: str, name: str, created: str, window: int, output: int, thinking: Iterable[str], *,
              compaction: bool = False) -> ModelInfo:
    return ModelInfo(id, name, created, window, output, frozenset(thinking), compaction=compaction,
                     context_editing=_EDITS)


# Used only without a Models API (see the module docstring); newest first, like the API.
# Sources (read 2026-12): the model overview pages https://platform.claude.com/docs/en/models/<model>/overview
# (sonnet-5-5: released 2026-09-28, 1M window, 128K output, adaptive thinking; "turn off up-front
# thinking with between_tools"; haiku-5-5: released 2026-10-07, 1M, 128K, adaptive with effort;
# opus-5-5: 1M, 128K, "adaptive (always on)", thinking cannot be disabled), the "How it compares"
# table of https://platform.claude.com/docs/en/models/opus-5/overview (Claude Haiku 4.5: 200K, 64K,
# extended thinking, i.e. budget_tokens) and the adaptive-thinking notes of
# https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-adaptive-thinking.html
# (adaptive-only models refuse budget_tokens with 400). Release dates not found are left empty.
# Effort levels are not listed here: they are used only when an endpoint advertises them.
# Server-side context management (read 2026-12-04): on-demand compaction per the `supportedModels` of
# https://platform.claude.com/docs/en/build-with-claude/compaction-on-demand (Opus 5.5 and Sonnet 5.5 here,
# not Haiku 5.5 or 4.5); context editing "is available on all supported Claude models" with tool result and
# thinking block clearing (https://platform.claude.com/docs/en/build-with-claude/context-editing).
FALLBACK_MODELS: tuple[ModelInfo, ...] = (
    _fallback("claude-haiku-5-5", "Claude Haiku 5.5", "2026-10-07T00:00:00Z", 1_000_000, 128_000, ["adaptive"]),
    _fallback("claude-sonnet-5-5", "Claude Sonnet 5.5", "2026-09-28T00:00:00Z", 1_000_000, 128_000,
              ["adaptive", "between_tools"], compaction=True),
    _fallback("claude-opus-5-5", "Claude Opus 5.5", "", 1_000_000, 128_000, ["adaptive"], compaction=True),
    _fallback("claude-haiku-4-5", "Claude Haiku 4.5", "2025-10-01T00:00:00Z", 200_000, 64_000,
              ["enabled", "disabled"]),
)

FALLBACK_NOTE = "the endpoint lists no models (no Models API); this is agentls' offline list of Anthropic models"
DEMO_NOTE = "the offline demo model answers; this is agentls' offline list of Anthropic models"


def fallback_catalog(note: str = FALLBACK_NOTE, endpoint: str = "") -> Catalog:
    return Catalog(FALLBACK_MODELS, FALLBACK, note, endpoint)


FALLBACK_CATALOG = fallback_catalog()
# The model ModelSettings names before any catalog is read: the rule applied to the fallback table.
OFFLINE_DEFAULT_MODEL: str = default_model(FALLBACK_MODELS) or FALLBACK_MODELS[0].id


# ---------------------------------------------------------------- windows

# Without a contextWindow setting the pipeline works in at most this many tokens, even when the
# model takes more: every request re-reads its whole prefix, so a conversation grown to 1M tokens
# costs 5x one kept at 200K per call. Raise it (agentls.contextWindow) to use more of the window.
DEFAULT_WORKING_WINDOW = 200_000


def working_window(info: ModelInfo | None, configured: int | None) -> int:
    """The window the context pipeline works in: the setting (never beyond the model's own window),
    else min(the model's window, DEFAULT_WORKING_WINDOW)."""
    model_window = info.max_input_tokens if info is not None else None
    if configured is not None:
        return min(configured, model_window) if model_window else configured
    return min(model_window, DEFAULT_WORKING_WINDOW) if model_window else DEFAULT_WORKING_WINDOW


# ---------------------------------------------------------------- which model answers

@dataclass(frozen=True)
class ModelChoice:
    """The model requests name, what the catalog says about it, and what the user must hear."""

    model: str
    info: ModelInfo | None  # None: no catalog describes it (any id works on other endpoints)
    configured: str | None
    warning: str = ""  # the configured model is not offered: what is used instead, and what to change


def choose_model(configured: str | None, catalog: Catalog, setting: str = "model") -> ModelChoice:
    """The configured model when the catalog offers it (or cannot say: the fallback table is no
    list of what the endpoint offers), else the default rule's model, with a warning naming both.
    Using a listed model instead of sending the unlisted one avoids a 404 at the first message."""
    if configured:
        info = catalog.get(configured)
        if info is not None or catalog.source != ENDPOINT or not catalog.models:
            return ModelChoice(configured, info, configured)
    chosen = default_model(catalog.models) or OFFLINE_DEFAULT_MODEL
    info = catalog.get(chosen)
    if not configured:
        return ModelChoice(chosen, info, None)
    where = catalog.endpoint or "the endpoint"
    offered = ", ".join(catalog.ids[:8]) + (", …" if len(catalog.models) > 8 else "")
    shown = configured if len(configured) <= QUOTED_ID_CHARS else f"{configured[:QUOTED_ID_CHARS]}…"
    warning = (f"the model '{shown}' (setting {setting}) is not offered by {where}, so {chosen} answers "
               f"instead. Choose a model in the model picker or change {setting}; offered: {offered}")
    return ModelChoice(chosen, info, configured, warning)
