"""The engine's figures for the context views: the report, what the next request will do, the placeholders.

Read-only over the history and the engine's counters (pipeline.py hands them in), so the views can
never change what is sent.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from .blocks import blocks_of
from .compact import choose_cut
from .config import ContextConfig
from .history import History
from .placeholders import parse_cleared_prose, parse_user_placeholder
from .policy import plan_emergency
from .report import COMPACT, NONE, TOO_LARGE, TRIM, Categories, LayerFigure, Placeholder
from .store import input_ref, result_ref

CLEARED_BY_API = "clearedByApi"  # a result the API cleared (server-side context editing): placeholder state


@dataclass
class LayerStat:
    count: int = 0
    tokens_saved: int = 0


def categories(config: ContextConfig, history: History, tools_tokens: int, instructions_tokens: int) -> Categories:
    """Tokens by kind; mid-conversation system messages count with the system prompt."""
    cats = history.category_tokens
    system = max(0, config.system_tokens - tools_tokens - instructions_tokens) + cats["system_messages"]
    return Categories(system=system, tools=tools_tokens, instructions=instructions_tokens, user=cats["user"],
                      assistant=cats["assistant"], tool_results=cats["tool_results"])


def layer_figures(stats: Mapping[str, LayerStat]) -> tuple[LayerFigure, ...]:
    return tuple(LayerFigure(name, stat.count, stat.tokens_saved) for name, stat in stats.items())


def next_request(config: ContextConfig, history: History, estimate: int, summary_failures: int,
                 unseen: Collection[str]) -> str:
    """What preparing the next request will do about the size: none, compact, trim or too large."""
    window = config.effective_window
    summarisable = (config.auto_compact and summary_failures < config.breaker_failures
                    and choose_cut(history, config) is not None)
    if estimate >= config.compact_at * window and summarisable:
        return COMPACT
    if estimate <= window:
        return NONE
    return TRIM if estimate - plan_emergency(history, config, unseen).saves <= window else TOO_LARGE


def placeholders(history: History, cleared_by_api: Collection[str] = ()) -> list[Placeholder]:
    """Every rewritten block and where its full text is; results the API cleared too (their original
    stays readable by the same ref)."""
    found = []
    for record in history.records.values():
        if record.state:
            found.append(Placeholder(record.id, record.name, record.state, result_ref(record.id),
                                     record.original_chars))
        elif record.id in cleared_by_api:
            found.append(Placeholder(record.id, record.name, CLEARED_BY_API, result_ref(record.id),
                                     record.original_chars))
        if record.input_cleared:
            found.append(Placeholder(record.id, record.name, "clearedInput", input_ref(record.id),
                                     record.input_chars))
    for message in history.messages:  # the report is rare: a scan is fine
        for block in blocks_of(message):
            text = str(block.get("text", "")) if block.get("type") == "text" else ""
            if message["role"] == "assistant" and (cleared := parse_cleared_prose(text)):
                found.append(Placeholder("", "(assistant text)", "clearedProse", cleared[0], cleared[1]))
            elif message["role"] == "user" and (stood := parse_user_placeholder(text)):
                layer, what, ref, chars = stood
                found.append(Placeholder("", what, layer, ref, chars))
    return found
