"""The `thinking` setting → the request's `thinking` / `output_config`, following what the model advertises.

Current models take `thinking: {"type": "adaptive"}` (the model decides when and how much
to think) and refuse manual `budget_tokens` with 400; older ones take only
`{"type": "enabled", "budget_tokens": N}`. The Models API says which
(`capabilities.thinking.types.<type>.supported`, `capabilities.effort.<level>.supported`),
so the mapping reads the model's ModelInfo and never guesses:

- ``auto`` (default): adaptive where advertised, else a manual budget where only that is,
  else nothing;
- ``off``: thinking turned off the way the model allows (`disabled`, or `between_tools` on
  models that cannot disable it), else nothing is sent (the model's default stands);
- an effort level (``low`` … ``max``): adaptive with `output_config.effort` where the model
  advertises that level; otherwise as ``auto``, with a note saying why.

Adaptive thinking asks for `display: "summarized"`: some models omit the thinking text by
default, and the panel streams it (SDK ThinkingConfigAdaptiveParam.display; see
https://platform.claude.com/docs/en/build-with-claude/thinking#controlling-thinking-display).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .catalog import EFFORT_LEVELS, ModelInfo

THINKING_MODES = ("auto", "off", *EFFORT_LEVELS)
MIN_THINKING_BUDGET = 1024  # the API's floor for budget_tokens (SDK ThinkingConfigEnabledParam)
DEFAULT_THINKING_BUDGET = 4096  # ours: a modest budget for manual-only models; thinkingBudget overrides it
SUMMARIZED = "summarized"


@dataclass(frozen=True)
class ThinkingRequest:
    """What one request carries for thinking."""

    kind: str  # "adaptive" | "manual" | "off" | "none"
    thinking: dict[str, Any] | None = None  # the request's `thinking`; None: not sent
    output_config: dict[str, Any] | None = None  # `{"effort": …}` or None
    max_tokens: int = 0  # the request's max_tokens (room for a manual budget made here)
    note: str = ""  # why the setting could not be followed as asked ("" when it was)


def thinking_request(mode: str, info: ModelInfo | None, *, max_tokens: int, budget: int | None = None,
                     max_output: int | None = None) -> ThinkingRequest:
    """The thinking part of a request for `info` (None: a model no catalog describes).

    `max_tokens` is the request's max_tokens already capped by the model; a manual budget
    raises it to budget + MIN_THINKING_BUDGET (the API needs room for the answer), never
    beyond `max_output` (the model's own limit), shrinking the budget if it must.
    """
    types = info.thinking_types if info is not None else frozenset()
    name = info.id if info is not None else "this model"
    if mode == "off":
        for kind in ("disabled", "between_tools"):
            if kind in types:
                return ThinkingRequest("off", {"type": kind}, None, max_tokens)
        return ThinkingRequest("none", None, None, max_tokens,
                               "" if info is None or info.thinking == "none"
                               else f"{name} cannot turn thinking off; its default applies")
    if mode in EFFORT_LEVELS:
        if "adaptive" in types and mode in info.efforts:  # type: ignore[union-attr]
            return ThinkingRequest("adaptive", _adaptive(), {"effort": mode}, max_tokens)
        plan = thinking_request("auto", info, max_tokens=max_tokens, budget=budget, max_output=max_output)
        return _with_note(plan, f"{name} does not advertise the effort level {mode!r}; thinking is {plan.kind}")
    if "adaptive" in types:
        return ThinkingRequest("adaptive", _adaptive(), None, max_tokens)
    if "enabled" in types:
        return _manual(budget or DEFAULT_THINKING_BUDGET, max_tokens, max_output, name)
    return ThinkingRequest("none", None, None, max_tokens)


def _adaptive() -> dict[str, Any]:
    return {"type": "adaptive", "display": SUMMARIZED}


def _manual(budget: int, max_tokens: int, max_output: int | None, name: str) -> ThinkingRequest:
    budget = max(MIN_THINKING_BUDGET, budget)
    wanted = max(max_tokens, budget + MIN_THINKING_BUDGET)
    if max_output is not None and wanted > max_output:
        wanted = max_output
        budget = max_output - MIN_THINKING_BUDGET
    if budget < MIN_THINKING_BUDGET:
        return ThinkingRequest("none", None, None, max_tokens,
                               f"{name} allows too few output tokens for a thinking budget")
    return ThinkingRequest("manual", {"type": "enabled", "budget_tokens": budget}, None, wanted)


def _with_note(plan: ThinkingRequest, note: str) -> ThinkingRequest:
    return ThinkingRequest(plan.kind, plan.thinking, plan.output_config, plan.max_tokens, note)
