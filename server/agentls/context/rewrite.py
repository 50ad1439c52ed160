"""A planned rewrite of one block, and how it is carried out."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from . import placeholders, server_results
from .blocks import Message, blocks_of, result_text
from .history import THINKING_TYPES, History
from .store import ResultStore, input_ref, result_ref, text_ref

# Layers that rewrite a block, and the badge the editor shows for each.
TRUNCATE, BUDGET, SNIP, CLEAR, CLEAR_INPUT, CLEAR_PROSE, MICROCOMPACT, COMPACT, FOLD, SUPERSEDE = (
    "truncate", "budget", "snip", "clear", "clearInputs", "clearProse", "microcompact", "compact", "fold",
    "supersede",
)
CLEAR_TEXT = "clearTextResults"  # a result the harness sent as user text (text_results.py)
THINKING_ONLY = -2  # the `block` of a CLEAR_PROSE rewrite that takes a message's thinking and leaves its words
MARKER = {TRUNCATE: "truncated", BUDGET: "budgeted", SNIP: "snipped", CLEAR: "cleared",
          MICROCOMPACT: "cleared", CLEAR_INPUT: "cleared", CLEAR_PROSE: "cleared", FOLD: "folded",
          SUPERSEDE: "superseded", CLEAR_TEXT: "cleared"}


@dataclass(frozen=True)
class Rewrite:
    tool_use_id: str
    layer: str
    saves: int  # estimated tokens freed
    limit: int = 0  # chars kept, for budget
    message: int = -1  # the assistant message of prose (which has no tool_use id), the user message of a state block
    block: int = -1  # a superseded state block's or a text result's index in its message

    @property
    def on_input(self) -> bool:
        return self.layer == CLEAR_INPUT

    @property
    def key(self) -> tuple[str, str, int]:
        """What the rewrite changes: a result, an input, or a message's prose (at most one rewrite each)."""
        if self.layer == FOLD:
            return self.tool_use_id, "fold", self.message
        if self.layer == SUPERSEDE:
            return str(self.block), "state", self.message
        if self.layer == CLEAR_TEXT:
            return str(self.block), "text", self.message
        if self.layer == CLEAR_PROSE:
            return self.tool_use_id, "thinking" if self.block == THINKING_ONLY else "prose", self.message
        kind = "input" if self.on_input else "result"
        return self.tool_use_id, kind, self.message

    def position(self, history: History) -> int:
        """Index of the message this rewrite changes: the cache is lost from there on."""
        if self.layer in (CLEAR_PROSE, FOLD, SUPERSEDE, CLEAR_TEXT):
            return self.message
        record = history.records[self.tool_use_id]
        return record.use_msg if self.on_input else record.result_msg  # type: ignore[return-value]


def readable_input(tool_input: dict[str, Any]) -> str:
    """A tool input as the model would want to re-read it: each field's text unescaped."""
    parts = []
    for name, value in tool_input.items():
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        parts.append(f"--- {name} ---\n{shown}")
    return "\n".join(parts)


def apply(rewrite: Rewrite, history: History, store: ResultStore, keep_thinking: bool = False) -> int:
    """Carry out one rewrite; the full text goes to the store first. Returns tokens freed.

    keep_thinking (bound thinking): prose clearing leaves thinking blocks to binding.release_thinking."""
    if rewrite.layer == CLEAR_PROSE and rewrite.block == THINKING_ONLY:
        return _clear_thinking(history, rewrite.message, store)
    if rewrite.layer == CLEAR_PROSE:
        return _clear_prose(history, rewrite.message, store, keep_thinking)
    if rewrite.layer == SUPERSEDE:
        return _supersede(history, rewrite.message, rewrite.block, store)
    if rewrite.layer == CLEAR_TEXT:
        return _clear_text_result(history, rewrite.message, rewrite.block, store)
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


def prose_text(history: History, msg_index: int) -> str:
    """The text and thinking of an assistant message, as stored when it is cleared."""
    return message_prose(history.messages[msg_index])


def message_prose(message: Message) -> str:
    """The text and thinking of an assistant message and the server tool calls answered in it, in order."""
    parts = []
    blocks = blocks_of(message)
    pairs = server_results.clearable_pairs(blocks)
    for block in blocks:
        kind = block.get("type")
        if server_results.in_pair(block, pairs):
            parts.append(server_results.rendered(block))
        elif kind == "text":
            parts.append(block.get("text", ""))
        elif kind == "thinking":
            parts.append(f"<thinking>\n{block.get('thinking', '')}\n</thinking>")
        elif kind == "redacted_thinking":
            parts.append("<redacted thinking>")
    return "\n\n".join(parts)


def _supersede(history: History, msg_index: int, block_index: int, store: ResultStore) -> int:
    block = blocks_of(history.messages[msg_index])[block_index]
    tag = history.states.superseded[(msg_index, block_index)]
    text = str(block.get("text", ""))
    ref = text_ref(text)
    store.put(ref, text)
    placeholder = {"type": "text", "text": placeholders.superseded(tag, len(text), ref)}
    return history.cut_block(msg_index, block_index, placeholder)


def _clear_text_result(history: History, msg_index: int, block_index: int, store: ResultStore) -> int:
    text = str(blocks_of(history.messages[msg_index])[block_index].get("text", ""))
    ref = text_ref(text)
    store.put(ref, text)
    placeholder = {"type": "text", "text": placeholders.cleared_text(len(text), ref)}
    return history.cut_block(msg_index, block_index, placeholder)


def _clear_thinking(history: History, msg_index: int, store: ResultStore) -> int:
    thinking = {"role": "assistant", "content": [b for b in blocks_of(history.messages[msg_index])
                                                 if b.get("type") in THINKING_TYPES]}
    text = message_prose(thinking)
    ref = text_ref(text)
    store.put(ref, text)
    return history.rewrite_thinking(msg_index, placeholders.cleared_prose(len(text), ref))


def _clear_prose(history: History, msg_index: int, store: ResultStore, keep_thinking: bool) -> int:
    text = prose_text(history, msg_index)
    ref = text_ref(text)
    store.put(ref, text)
    return history.rewrite_prose(msg_index, placeholders.cleared_prose(len(text), ref), keep_thinking)
