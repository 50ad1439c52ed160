"""L2: an older result of the same (tool, path-or-command) is stale once a newer one exists.

Only a result its placeholder is clearly smaller than is snipped (placeholders.worth_rewriting).
"""

from __future__ import annotations

from collections.abc import Iterator

from .config import ContextConfig
from .history import History
from .placeholders import snip_saving, worth_rewriting
from .rewrite import SNIP, Rewrite
from .store import result_ref


def plan_snip(history: History, config: ContextConfig, exempt: set[str]) -> Iterator[Rewrite]:
    for tool_use_id in history.stale:
        record = history.records[tool_use_id]
        if tool_use_id in exempt or record.name not in config.snippable_tools:
            continue
        saves = snip_saving(record, config.tokens, result_ref(tool_use_id))
        if worth_rewriting(saves):  # a short result snipped would only break the cache
            yield Rewrite(tool_use_id, SNIP, saves)
