"""Server-side context editing: how a bound-thinking session lets old tool results go without rewriting them.

On a model that binds thinking to its prefix, the client may not rewrite an old tool result (binding.py),
but the API may: a request carrying the `context_management` parameter with a `clear_tool_uses_20250919`
edit has the server clear the oldest tool results itself, after its prefix check
(https://platform.claude.com/docs/en/build-with-claude/context-editing; field names from the anthropic
SDK's BetaClearToolUses20250919EditParam and BetaClearToolUses20250919EditResponse). The client keeps
sending the history unchanged; the response's `context_management.applied_edits` says how many tool uses
were cleared (`cleared_tool_uses`), always the oldest ones not excluded.

**When to clear, and how much** (:func:`clear_at_least`). A clear changes the prompt from the first cleared
result on, so the request after it writes the cache again from there instead of reading it: at most the
whole prompt left after the clear, ``T - C`` tokens, at ``write - read`` extra each (T: the trigger, C: the
tokens cleared; the model's prices ``ContextConfig.write_price`` / ``read_price``). From then on every
request reads C tokens fewer: it saves ``read * C``. The prompt grows back to the trigger in about
``C / g`` requests (g: what a request adds), and the next clear costs the same again, so a clear pays for
itself within its cycle when ``read * C * C / g >= (write - read) * (T - C)``: the smallest such C is
the root of that quadratic. Small clears (the API's default clears whatever it can) would pay the
re-write every few requests for little; this is the same ski-rental trade as policy.py's batches, made
once per cycle by the server. The growth g is read from the clearing layer's own figures: the recent
results it keeps verbatim fill ``clear_recent_fraction`` of the window over ``clear_keep_recent``
results, about one result per request. C never exceeds what the trigger leaves clearable (the kept
results' share of the window stays), and is at least ``min_cacheable_tokens``: a clear smaller than the
shortest cacheable prompt frees less than one cache entry's worth and still costs the re-write.

**Whether to send it at all** (:class:`EditingSwitch`). The API edits each request on its own: once the full
history passes the trigger, every request clears all but the ``keep`` newest tool uses again, so the boundary
moves by one tool use per request and each request re-writes the prompt from there: the kept tool uses and
everything after them, ``(write - read) * tail`` extra, against ``read * cleared`` saved. At today's prices
(reads 0.05x, 5-minute writes 1.25x) that pays only when the cleared results outweigh the kept tail 24 to 1,
which the replay of the shared sessions never showed (server editing on: 4.3x append-only at 64K). So the
engine sends the parameter when that inequality holds, or when a summary cannot keep the window (automatic
compaction off, or the summarizer failed): then the server's clearing is the binding-safe alternative to a
client-side rewrite that would release the thinking. Otherwise compaction keeps the window.

The trigger is L1's hard threshold (``budget_hard_at`` of the window): the point where the client itself
would start cutting results hard, and well before a summary (``compact_at``). The kept tool uses are the
clearing layer's (``clear_keep_recent``) and the protected tools are excluded, as client-side.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from .config import ContextConfig
from .history import History

CLEAR_TOOL_USES = "clear_tool_uses_20250919"


def clear_at_least(trigger: float, growth: float, read: float, write: float) -> float:
    """The smallest C with ``read * C**2 / growth >= (write - read) * (trigger - C)`` (module docstring)."""
    extra = max(0.0, write - read)
    if read <= 0 or growth <= 0:
        return trigger
    a, b, c = read / growth, extra, -extra * trigger
    return (-b + math.sqrt(b * b - 4 * a * c)) / (2 * a)


def context_management(config: ContextConfig) -> dict[str, Any] | None:
    """The `context_management` parameter for the next request (None: the model is not bound, or the
    server does not edit)."""
    if not (config.thinking_bound and config.server_editing):
        return None
    window = config.effective_window
    trigger = int(config.budget_hard_at * window)
    growth = config.clear_recent_fraction * window / max(1, config.server_keep_recent)
    wanted = clear_at_least(trigger, growth, config.read_price, config.write_price)
    clearable = trigger - config.clear_recent_fraction * window
    amount = int(max(config.min_cacheable_tokens, min(wanted, clearable)))
    edit: dict[str, Any] = {
        "type": CLEAR_TOOL_USES,
        "trigger": {"type": "input_tokens", "value": trigger},
        "keep": {"type": "tool_uses", "value": config.server_keep_recent},
        "clear_at_least": {"type": "input_tokens", "value": amount},
    }
    if config.protected_tools:
        edit["exclude_tools"] = sorted(config.protected_tools)
    return {"edits": [edit]}


def editing_figures(config: ContextConfig, history: History) -> tuple[float, float]:
    """(what one request gains by being edited, what switching the edit on costs once), at the model's prices:
    the reads of the results it clears less the re-write of the kept tail; the re-write of everything from
    the first result it clears. Work: one pass over the tool records, as the report does."""
    eligible = [r for r in history.records.values()
                if r.result_msg is not None and r.name not in config.protected_tools]
    if len(eligible) <= config.server_keep_recent:
        return 0.0, 0.0
    first_kept = eligible[-config.server_keep_recent].use_msg if config.server_keep_recent else len(history.messages)
    cleared_results = eligible[:len(eligible) - config.server_keep_recent]
    tail = history.msg_tokens.between(first_kept, len(history.msg_tokens))
    cleared = sum(history.msg_tokens[r.result_msg] for r in cleared_results if r.result_msg is not None)
    extra = config.write_price - config.read_price
    switch = extra * history.msg_tokens.between(cleared_results[0].use_msg, len(history.msg_tokens))
    return config.read_price * cleared - extra * tail, switch


class EditingSwitch:
    """Whether the next request carries the edit (module docstring), decided like policy.py's batches (ski
    rental): the first edited request re-writes the cache from the first cleared result, so the edit is
    switched on once the gain given up by not editing (each request past the trigger: the reads of what it
    would clear less the tail's re-write) reaches that one-time price; at once when a summary cannot keep
    the window. Once on it stays on (switching it off would re-write the cleared part again) until a
    compaction replaces the history (`reset`)."""

    def __init__(self) -> None:
        self.on = False
        self.rent = 0.0

    def reset(self) -> None:
        self.on, self.rent = False, 0.0

    def decide(self, config: ContextConfig, history: History, estimate: float, *, compaction_possible: bool) -> bool:
        if not (config.thinking_bound and config.server_editing):
            return False
        if self.on or not compaction_possible:
            self.on = True
            return True
        if estimate < config.budget_hard_at * config.effective_window:
            return False  # under the trigger the server clears nothing: no gain given up yet
        gain, switch = editing_figures(config, history)
        if gain <= 0:
            return False
        self.rent += gain
        self.on = self.rent >= switch
        return self.on


def cleared_by_server(history: History, edits: Iterable[Mapping[str, Any]],
                      exclude: frozenset[str]) -> list[str]:
    """The tool_use ids a response's applied edits cleared: the oldest `cleared_tool_uses` tool uses with a
    result whose tool is not excluded (the server clears oldest first)."""
    count = sum(int(e.get("cleared_tool_uses") or 0) for e in edits if e.get("type") == CLEAR_TOOL_USES)
    if count <= 0:
        return []
    eligible = (r.id for r in history.records.values() if r.result_msg is not None and r.name not in exclude)
    return [tool_use_id for _, tool_use_id in zip(range(count), eligible)]
