"""A planned rewrite of one block, and how it is carried out."""

from __future__ import annotations

import json
from dataclasses import dataclass

from . import placeholders
from .blocks import result_text
from .history import History
from .store import ResultStore, input_ref, result_ref

# Layers that rewrite a block, and the badge the editor shows for each.
TRUNCATE, BUDGET, SNIP, CLEAR, CLEAR_INPUT, MICROCOMPACT, COMPACT = (
    "truncate", "budget", "snip", "clear", "clearInputs", "microcompact", "compact",
)
MARKER = {TRUNCATE: "truncated", BUDGET: "budgeted", SNIP: "snipped", CLEAR: "cleared",
          MICROCOMPACT: "cleared", CLEAR_INPUT: "cleared"}


@dataclass(frozen=True)
class Rewrite:
    tool_use_id: str
    layer: str
    saves: int  # estimated tokens freed
    limit: int = 0  # chars kept, for budget

    @property
    def on_input(self) -> bool:
        return self.layer == CLEAR_INPUT


def readable_input(tool_input: dict) -> str:
    """A tool input as the model would want to re-read it: each field's text unescaped."""
    parts = []
    for name, value in tool_input.items():
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        parts.append(f"--- {name} ---\n{shown}")
    return "\n".join(parts)


def apply(rewrite: Rewrite, history: History, store: ResultStore) -> int:
    """Carry out one rewrite; the full text goes to the store first. Returns tokens freed."""
    record = history.records[rewrite.tool_use_id]
    if rewrite.on_input:
        ref = input_ref(record.id)
        store.put(ref, readable_input(record.input))
        new_input = {}
        for name, value in record.input.items():
            if isinstance(value, str) and len(value) > 120 and name not in ("path", "file_path"):
                value = placeholders.cleared_input_value(len(value), ref)
            new_input[name] = value
        return history.rewrite_input(record.id, new_input)
    ref = result_ref(record.id)
    block = history.result_block(record.id)
    assert block is not None
    text = result_text(block)
    if store.get(ref) is None:
        store.put(ref, text)
    if rewrite.layer == BUDGET:
        new_text = placeholders.cut_middle(text, rewrite.limit, ref, "budgeted")
    elif rewrite.layer == SNIP:
        new_text = placeholders.snipped(record, ref)
    else:
        new_text = placeholders.cleared(record, ref)
    return history.rewrite_result(record.id, new_text, MARKER[rewrite.layer])
