"""What the model at hand means for the conversation's head and its context engine (issue 29).

- `HeadRules`: whether the head (`system` and `tools`) is fixed for the conversation — the model binds its
  thinking to the exact prefix (model/binding.py `thinking_binds`, with thinking on as the client sends it,
  model/thinking.py) or takes mid-conversation `role: "system"` messages (`accepts_system_messages`) —
  and how a later change reaches the model: a system message, `tool_addition` / `tool_removal` blocks, or
  neither (a text block in the next user message; tool changes held until the next compaction).
- `with_model_facts`: the engine's `ContextConfig` with the model's binding, its server-side editing and
  compaction (the Models API's capabilities, ModelInfo) and its cache prices (model/pricing.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...context import ContextConfig
from ...model import pricing
from ...model.binding import accepts_system_messages, accepts_tool_changes, thinking_binds
from ...model.settings import ModelSettings
from ...model.thinking import thinking_request

CLEAR_TOOL_USES = "clear_tool_uses_20250919"  # the context-editing strategy the engine sends (context-editing docs)
THINKING_KINDS = ("adaptive", "manual")  # thinking_request kinds that send thinking


@dataclass(frozen=True)
class HeadRules:
    fixed: bool  # the first request's system and tools stay, byte for byte, until a compaction
    system_messages: bool  # a change is a `role: "system"` message (else a text block of the next user message)
    tool_changes: bool  # a tool change is tool_addition / tool_removal (else held until the next compaction)


def thinking_on(settings: ModelSettings, model: str | None = None) -> bool:
    """Whether a request to `model` carries thinking, as ModelClient builds it (model/thinking.py)."""
    info = settings.model_info(model)
    plan = thinking_request(settings.thinking, info, max_tokens=settings.max_tokens, budget=settings.thinking_budget,
                            max_output=info.max_tokens if info is not None else None)
    return plan.kind in THINKING_KINDS


def head_rules(settings: ModelSettings) -> HeadRules:
    model = settings.model
    system_messages = accepts_system_messages(model)
    fixed = system_messages or thinking_binds(model, thinking_on(settings))
    return HeadRules(fixed, system_messages, fixed and accepts_tool_changes(model))


def with_model_facts(config: ContextConfig, settings: ModelSettings) -> ContextConfig:
    """`config` with the facts of the model `settings` name (the defaults where nothing is known)."""
    model = settings.model
    info = settings.model_info(model)
    # ModelInfo.compaction / context_editing and pricing.cache_multipliers / min_cacheable_tokens come with the
    # model branch of issue 29: read defensively so this works before and after it is merged
    editing: frozenset[str] = getattr(info, "context_editing", frozenset()) if info is not None else frozenset()
    facts: dict[str, object] = {
        "thinking_bound": thinking_binds(model, thinking_on(settings)),
        "server_editing": CLEAR_TOOL_USES in editing,
        "server_compaction": bool(getattr(info, "compaction", False)) if info is not None else False,
    }
    multipliers = getattr(pricing, "cache_multipliers", None)
    prices = multipliers(model, settings.prices) if multipliers is not None else None
    if prices is not None:
        read, write_5m, write_1h = prices
        facts["read_price"], facts["write_price"] = read, write_1h if settings.cache_ttl == "1h" else write_5m
    minimum = getattr(pricing, "min_cacheable_tokens", None)
    if minimum is not None:
        facts["min_cacheable_tokens"] = minimum(model)
    return config.updated(**facts)
