"""L2: an older result of the same (tool, path-or-command) is stale once a newer one exists."""

from __future__ import annotations

from collections.abc import Iterator

from .config import ContextConfig
from .history import History
from .placeholders import PLACEHOLDER_TOKENS
from .rewrite import SNIP, Rewrite


def plan_snip(history: History, config: ContextConfig, exempt: set[str]) -> Iterator[Rewrite]:
    for tool_use_id in history.stale:
        record = history.records[tool_use_id]
        if tool_use_id in exempt or record.name not in config.snippable_tools:
            continue
        yield Rewrite(tool_use_id, SNIP, max(0, config.tokens(record.chars) - PLACEHOLDER_TOKENS))
