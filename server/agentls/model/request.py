"""One Messages API request as a plain dict, and the beta headers it needs.

`build_request` assembles what every call sends (cache breakpoints, the model's output limit,
thinking); the optional beta parameters are added by the caller. `required_betas` reads a finished
request and names exactly the `anthropic-beta` values its parameters need (none: the plain
Messages call); `with_drop_block` makes the prefix-mismatch retry of a request.

Beta names and shapes are those of the installed SDK's beta types (`anthropic.types.beta`) and the docs:
- `thinking.block_binding.prefix_mismatch_behavior: "drop_block"`, beta thinking-binding-controls-2026-08-01:
  https://platform.claude.com/docs/en/build-with-claude/preserved-thinking/fix-bound-to-a-different-conversation
  ("Set type to adaptive … If your request doesn't set the thinking parameter, adding it changes nothing
  else, because models with preserved thinking think adaptively by default"; a request that turned thinking
  off must remove the thinking blocks instead: no retry there);
- `context_management`, beta context-management-2025-06-27:
  https://platform.claude.com/docs/en/build-with-claude/context-editing;
- `compaction: {type: "summarize", instructions}`, beta compact-2026-09-04, also on every later request that
  carries the returned block: https://platform.claude.com/docs/en/build-with-claude/compaction-on-demand
  (SDK BetaCompactionConfigParam);
- `diagnostics: {previous_message_id}` needs no beta: cache diagnostics are generally available and the
  cache-diagnosis-2026-04-07 header "is no longer needed"
  (https://platform.claude.com/docs/en/build-with-claude/cache-diagnostics); the plain SDK call takes it;
- `role: "system"` messages need none; their `tool_addition` / `tool_removal` blocks and `clear_at` do
  (binding.py).
"""

from __future__ import annotations

from typing import Any

from .binding import (
    BINDING_CONTROLS_BETA,
    BINDING_MODELS,
    INLINE_TOOLS_BETA,
    SYSTEM_CLEAR_AT_BETA,
    TOOL_CHANGES_BETA,
    base_id,
)
from .cache import with_cache_breakpoints
from .catalog import ModelInfo
from .errors import is_prefix_mismatch
from .settings import ModelSettings
from .thinking import thinking_request

CONTEXT_MANAGEMENT_BETA = "context-management-2025-06-27"
COMPACTION_BETA = "compact-2026-09-04"
DROP_BLOCK = "drop_block"
_TOOL_CHANGES = ("tool_addition", "tool_removal")
_BINDABLE_THINKING = ("adaptive", "enabled")  # the thinking types that take `block_binding` (SDK)


def within_model_output(max_tokens: int, info: ModelInfo | None) -> int:
    """`max_tokens` within the model's own output limit (more is refused with 400)."""
    return min(max_tokens, info.max_tokens) if info is not None and info.max_tokens else max_tokens


def reply_tokens_asked(max_tokens: int, info: ModelInfo | None, thinking: str = "auto",
                       budget: int | None = None) -> int:
    """The max_tokens a conversation request asks for (build_request): the setting within the model's
    limit, raised where a manual thinking budget needs more."""
    capped = within_model_output(max_tokens, info)
    return thinking_request(thinking, info, max_tokens=capped, budget=budget,
                            max_output=info.max_tokens if info is not None else None).max_tokens


def build_request(settings: ModelSettings, system: Any, messages: list[dict], tools: list[dict] | None,
                  model: str, max_tokens: int, *, thinking: bool, stable_ttl: str, frontier: int | None = None,
                  previous_frontier: int | None = None) -> tuple[dict[str, Any], str]:
    """The request for `model`, and the note of the thinking mapping ("" when the setting was followed)."""
    tools = list(tools or [])
    if settings.use_cache_control:
        system, tools, messages = with_cache_breakpoints(
            system, tools, messages, frontier=frontier, previous_frontier=previous_frontier,
            placement=settings.cache_placement, stable_ttl=stable_ttl)
    info = settings.model_info(model)
    max_tokens = within_model_output(max_tokens, info)
    request: dict[str, Any] = {"model": model, "max_tokens": max_tokens, "messages": messages}
    if system:
        request["system"] = system
    if tools:
        request["tools"] = tools
    if not thinking:
        return request, ""
    plan = thinking_request(settings.thinking, info, max_tokens=max_tokens, budget=settings.thinking_budget,
                            max_output=info.max_tokens if info is not None else None)
    request["max_tokens"] = plan.max_tokens
    if plan.thinking is not None:
        request["thinking"] = plan.thinking
    if plan.output_config is not None:
        request["output_config"] = plan.output_config
    return request, plan.note


def with_drop_block(request: dict[str, Any], info: ModelInfo | None) -> dict[str, Any] | None:
    """A copy of `request` whose thinking drops blocks that fail the prefix check instead of failing with 400;
    None when it cannot (thinking turned off, or absent on a model not known to take adaptive thinking)."""
    thinking = request.get("thinking")
    if thinking is None:
        takes_adaptive = ("adaptive" in info.thinking_types if info is not None
                          else base_id(request["model"]) in BINDING_MODELS)
        if not takes_adaptive:
            return None
        thinking = {"type": "adaptive"}
    elif thinking.get("type") not in _BINDABLE_THINKING:
        return None
    return {**request, "thinking": {**thinking, "block_binding": {"prefix_mismatch_behavior": DROP_BLOCK}}}


def rebound_request(request: dict[str, Any], info: ModelInfo | None, status: int | None,
                    detail: str) -> dict[str, Any] | None:
    """The request to send after a refusal, when it was the prefix-mismatch 400 (errors.is_prefix_mismatch):
    the same with drop_block. None for any other refusal, when the request already dropped mismatched
    blocks (a second mismatch is the error: never a loop), or when it cannot."""
    if not is_prefix_mismatch(status, detail):
        return None
    binding = (request.get("thinking") or {}).get("block_binding") or {}
    if binding.get("prefix_mismatch_behavior") == DROP_BLOCK:
        return None
    return with_drop_block(request, info)


def required_betas(request: dict[str, Any]) -> list[str]:
    """The `anthropic-beta` values `request` needs, in a stable order ([]: the plain Messages call)."""
    betas = []
    thinking = request.get("thinking")
    if isinstance(thinking, dict) and thinking.get("block_binding") is not None:
        betas.append(BINDING_CONTROLS_BETA)
    if request.get("context_management") is not None:
        betas.append(CONTEXT_MANAGEMENT_BETA)
    if request.get("compaction") is not None or _carries_compaction(request.get("messages", ())):
        betas.append(COMPACTION_BETA)
    return betas + _system_message_betas(request.get("messages", ()))


def _carries_compaction(messages: Any) -> bool:
    # "Send the compact-2026-09-04 beta header on the request that asks for the summary and on every later
    # request that carries the signed block" (compaction-on-demand); the block goes first in `messages`.
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "compaction" for b in content):
            return True
    return False


def _system_message_betas(messages: Any) -> list[str]:
    clear_at = by_reference = inline = False
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "system":
            continue
        clear_at |= message.get("clear_at") is not None
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") in _TOOL_CHANGES:
                tool = block.get("tool")
                defined = isinstance(tool, dict) and tool.get("type") == "tool_definition"
                inline |= defined
                by_reference |= not defined
    # inline-tools also covers changes by reference (mid-conversation-system-messages, "Mid-conversation tool changes")
    # tool_addition itself is the tool-changes beta; an inline definition also needs inline-tools (SDK types)
    tool_beta = [TOOL_CHANGES_BETA, INLINE_TOOLS_BETA] if inline else [TOOL_CHANGES_BETA] if by_reference else []
    return tool_beta + ([SYSTEM_CLEAR_AT_BETA] if clear_at else [])
