"""What the model was actually sent: the last request, and when each rewrite first went out.

Badges and the "as the model saw it" view of a tool result describe a request
that was sent, never one that is only prepared: a batch of rewrites is
announced once the request carrying it has been answered.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..context.blocks import Message, blocks_of, result_text
from ..context.pipeline import ContextEngine
from ..context.policy import Batch
from ..context.rewrite import FOLD, MARKER
from ..context.store import result_ref

COMPACTED = "compacted"  # the call was summarised away: only its ref is left
FOLDED = MARKER[FOLD]  # the call was folded into an index line (fold_turns.py): its ref reads it back


@dataclass
class Rewritten:
    marker: str  # "truncated", "budgeted", "snipped", "cleared"
    layer: str  # the layer that did it (truncate, budget, snip, clear, microcompact)
    at: float | None  # when the first request carrying it was sent (None: before a reload)


@dataclass
class SentLog:
    messages: list[Message] = field(default_factory=list)  # the last request sent
    rewritten: dict[str, Rewritten] = field(default_factory=dict)
    calls: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)  # id -> (tool, input)
    pending: list[Batch] = field(default_factory=list)  # applied, not yet sent

    def prepared(self, batch: Batch | None) -> None:
        if batch is not None:
            self.pending.append(batch)

    def sent(self, messages: list[Message], engine: ContextEngine, now: float | None) -> list[Batch]:
        """A request went out and was answered; returns the batches it was the first to carry."""
        self.messages = messages
        for record in engine.history.records.values():
            self.calls.setdefault(record.id, (record.name, record.input))
            if record.state and record.id not in self.rewritten:
                layer = engine.layer_of.get(record.id, record.state)
                self.rewritten[record.id] = Rewritten(record.state, layer, now)
        batches, self.pending = self.pending, []
        for batch in batches:  # a folded call has left the history: its badge is the fold's (fold_turns.py)
            for item in batch.rewrites:
                if item.layer == FOLD and item.tool_use_id not in self.rewritten:
                    self.rewritten[item.tool_use_id] = Rewritten(FOLDED, FOLD, now)
        return batches

    def clear(self) -> None:
        self.messages, self.pending = [], []
        self.rewritten.clear()
        self.calls.clear()


def _find_result(messages: list[Message], tool_use_id: str) -> dict[str, Any] | None:
    for message in reversed(messages):
        if message["role"] != "user":
            continue
        for block in blocks_of(message):
            if block.get("type") == "tool_result" and block.get("tool_use_id") == tool_use_id:
                return block
    return None


@dataclass(frozen=True)
class ToolResultView:
    """A tool call's input and its result as the model last saw it (agent/toolResult)."""

    tool_use_id: str
    tool: str
    input: dict[str, Any]
    is_error: bool
    text: str  # the result as the model last saw it
    sent: bool  # False: it arrived but no request carried it yet
    marker: str  # "", truncated, budgeted, snipped, cleared, compacted
    layer: str
    rewritten_at: float | None  # when the first request carrying the rewrite was sent
    ref: str  # the context:// ref of the full text, "" when none is kept
    original_chars: int
    original: str | None = None  # the full text, when asked for


def tool_result_view(log: SentLog, engine: ContextEngine, tool_use_id: str,
                     with_original: bool) -> ToolResultView | None:
    """A tool call's input and its result as the model last saw it."""
    record = engine.history.records.get(tool_use_id)
    tool, tool_input = log.calls.get(tool_use_id, ("", {}))
    if record is not None:
        tool, tool_input = record.name, record.input
    ref = result_ref(tool_use_id)
    original = engine.store.get(ref)
    # Summarised away by a compaction (a deliberate rewrite the user sees as a divider): gone at once.
    block = _find_result(log.messages, tool_use_id) if record is not None else None
    sent = block is not None
    if block is None and record is not None:
        block = engine.history.result_block(tool_use_id)  # arrived, not sent yet
    if block is None and original is None and not tool:
        return None
    rewritten = log.rewritten.get(tool_use_id)
    marker, layer, at = "", "", None
    folded = engine.folded_lines.get(tool_use_id) if record is None else None
    if folded is not None:  # a batch folded the call: the model sees its index line (fold_turns.py)
        at = rewritten.at if rewritten is not None else None
        return ToolResultView(tool_use_id, tool, tool_input, False, folded, True, FOLDED, FOLD, at,
                              ref if original is not None else "", len(original or ""),
                              original if with_original else None)
    if block is None:
        marker = layer = COMPACTED
    elif rewritten is not None and sent and result_text(block) != original:
        marker, layer, at = rewritten.marker, rewritten.layer, rewritten.at
    text = result_text(block) if block is not None else ""
    full = original if original is not None else text
    return ToolResultView(tool_use_id, tool, tool_input, bool(block.get("is_error")) if block is not None else False,
                          text, sent, marker, layer, at, ref if original is not None else "", len(full),
                          full if with_original else None)
