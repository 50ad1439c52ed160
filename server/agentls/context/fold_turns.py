"""Folding spent turns between compactions: a turn a batch leaves as nothing but placeholders leaves whole.

Clearing keeps a turn's shape: the tool call, a placeholder naming the result's ref, the assistant's cleared
prose. On sessions of many small calls that husk is most of what is carried (issue 31: tool calls and
placeholders were a third of the history nobody read again). Where a batch (policy.py) would leave a turn as
a husk, it folds the turn instead: the call and its results leave the request and one line of an **index**
(fold.py's form) says what was done and where the original is; the result, the call's input and the
assistant's words are in the store first, each readable by its ref, so nothing is lost.

**Which turns**: an assistant message of tool calls (and text or thinking) followed by a user message of
their results only (an earlier fold's index may be there too; never the user's own words), followed by a
reply, where after this batch every block is a placeholder or too small to clear: each result already
cleared or snipped, being cleared, snipped or microcompacted by this batch (a budget cut keeps content: not
folded), or too small for clearing to gain anything (a short shell output; a protected confirmation, kept
verbatim, keeps its turn); a large input cleared or being cleared (never a tool whose input is kept); long
prose cleared or being cleared. A result the model has not seen is never folded (it is no candidate of any
layer). Only turns from the batch's first change on, up to the recent results, are looked at: the prompt
changes there anyway, so nothing before the stable frontier (frontier.py) changes and the work is the
batch's span. A turn is folded only when what it frees is more than its index line (and the index's heading,
unless the index it joins already has one).

**Where the index goes**: into the user message after the next reply that stays (after the folded stretch,
so the prompt changes from the first folded message on and no earlier: the batch's price, policy.py, is
computed from there). Lines an earlier fold put into a folded message move on with it, in order.

**Price**: a fold is one more rewrite of the batch, its position the turn's call, its saving what the turn
still holds after the batch's rewrites less its index line; the batch is priced and timed as any other.
On a model that binds thinking to its prefix there are no batches (policy.py), so no folds between
compactions; a compaction still folds the settled turns of its tail (fold.py).
Pure: no I/O but the store it is handed; the work is bounded by the batch's span.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from .blocks import Block, Message, blocks_of, result_text
from .config import ContextConfig
from .clearing import older_than
from .fold import FOLD_MARK, WORDS_MARK, index_lines, index_text, is_index
from .history import History
from .placeholders import clear_saving, parse_cleared_prose, worth_rewriting
from .rewrite import (CLEAR, CLEAR_PROSE, CLEAR_TEXT, FOLD, MICROCOMPACT, SNIP, SUPERSEDE, Rewrite, message_prose,
                      readable_input)
from .store import ResultStore, input_ref, result_ref, words_ref

FOLDED_STATES = ("cleared", "snipped")  # results that are already no more than a placeholder
FOLDING_LAYERS = (CLEAR, SNIP, MICROCOMPACT)  # rewrites that leave a result no more than a placeholder
QUOTED_CHARS = 120  # a turn's text up to this long is quoted in its index line
CALL_TYPES = {"tool_use", "text", "thinking", "redacted_thinking"}
Key = tuple[str, str, int]


def plan_turn_folds(history: History, config: ContextConfig, claimed: Mapping[Key, Rewrite],
                    unseen: Collection[str] = ()) -> list[Rewrite]:
    """The folds of the turns `claimed` (a batch's rewrites, by key) leaves as husks, from its first change
    up to the recent results: one rewrite per tool call of each (the first carries the turn's saving)."""
    if not claimed:
        return []
    first = min(r.position(history) for r in claimed.values())
    boundary = older_than(history, config, config.clear_keep_recent)
    end = (history.records[history.results[boundary]].use_msg if boundary < len(history.results)
           else len(history.messages))
    freed: dict[int, int] = {}  # what the batch's other rewrites free in each turn, by its call
    for rewrite in claimed.values():
        if rewrite.layer in (SUPERSEDE, CLEAR_TEXT):
            continue  # not the user's own words, but a turn of text (no tool call) is not folded
        call = rewrite.message if rewrite.layer == CLEAR_PROSE else history.records[rewrite.tool_use_id].use_msg
        freed[call] = freed.get(call, 0) + rewrite.saves
    folds: list[Rewrite] = []
    for call in range(max(1, first - 1), end):  # bounded by the batch's own span
        if history.messages[call]["role"] == "assistant":
            folds.extend(_fold_of(history, config, call, claimed, freed.get(call, 0), unseen))
    return folds


def _fold_of(history: History, config: ContextConfig, call: int, claimed: Mapping[Key, Rewrite], freed: int,
             unseen: Collection[str]) -> list[Rewrite]:
    messages = history.messages
    if call + 3 >= len(messages) or [m["role"] for m in messages[call:call + 3]] != ["assistant", "user",
                                                                                     "assistant"]:
        return []  # the index needs the user message after the next reply; roles must still alternate
    uses = blocks_of(messages[call])
    if not {b.get("type") for b in uses} <= CALL_TYPES:
        return []
    ids = [str(b.get("id", "")) for b in uses if b.get("type") == "tool_use"]
    results = blocks_of(messages[call + 1])
    answered = [str(b.get("tool_use_id", "")) for b in results if b.get("type") == "tool_result"]
    if not ids or sorted(answered) != sorted(ids) or any(
            b.get("type") != "tool_result" and not is_index(b) for b in results):
        return []
    if not all(_spent(history, config, tool_use_id, claimed, unseen) for tool_use_id in ids):
        return []
    if call in history.live_texts and ("", "prose", call) not in claimed:
        return []
    left = history.msg_tokens[call] + history.msg_tokens[call + 1] - freed
    carried = sum(config.tokens(len(str(b.get("text", "")))) for b in results if is_index(b))
    line = "\n".join(turn_lines(history, call))
    header = 0 if any(is_index(b) for b in blocks_of(messages[call + 3])) else config.tokens(len(FOLD_MARK))
    saves = left - carried - config.tokens(len(line) + 1) - header
    if saves <= 0:
        return []
    return [Rewrite(tool_use_id, FOLD, saves if n == 0 else 0, message=call) for n, tool_use_id in enumerate(ids)]


def _spent(history: History, config: ContextConfig, tool_use_id: str, claimed: Mapping[Key, Rewrite],
           unseen: Collection[str]) -> bool:
    """After the batch, the call and its result are no more than a placeholder: its result cleared or
    snipped (before or now), or too small for any layer to gain by clearing it; its input too."""
    record = history.records[tool_use_id]
    if tool_use_id in unseen or record.name in history.kept_input_tools:
        return False
    if tool_use_id in history.live_inputs and (tool_use_id, "input", -1) not in claimed:
        return False
    result = claimed.get((tool_use_id, "result", -1))
    if result is not None:
        return result.layer in FOLDING_LAYERS
    if record.state in FOLDED_STATES:
        return True
    return tool_use_id in history.live and not worth_rewriting(
        clear_saving(record, config.tokens, result_ref(tool_use_id)))


def turn_lines(history: History, call: int) -> list[str]:
    """The index lines of the turn whose calls are message `call`; the last one says where its words are
    (the last call's ref + /words, `WORDS_MARK`) or quotes them when they are short."""
    lines = index_lines(history, history.messages[call])
    text = message_prose(history.messages[call])
    if text and lines:
        quoted = len(text) <= QUOTED_CHARS and "\n" not in text and parse_cleared_prose(text) is None
        lines[-1] += f"; said: {text}" if quoted else f" {WORDS_MARK}"
    return lines


def _turn_words(message: Message, store: ResultStore) -> str:
    """A turn's own words as its /words ref keeps them: whole, also where a placeholder stands for them."""
    blocks = []
    for block in blocks_of(message):
        cleared = parse_cleared_prose(str(block.get("text", ""))) if block.get("type") == "text" else None
        kept = store.get(cleared[0]) if cleared else None
        blocks.append({"type": "text", "text": kept} if kept is not None else block)
    return message_prose({"role": "assistant", "content": blocks})


def fold_turns(history: History, calls: list[int], store: ResultStore
               ) -> tuple[dict[int, Message], set[int], dict[str, str]]:
    """What folding the turns at `calls` takes: the user messages that receive the index (by index, as
    they become), the messages that go, and each folded call's index line; the originals are stored
    first. Every turn was planned by plan_turn_folds on this history, after the batch's other rewrites."""
    messages = history.messages
    gone = {index for call in calls for index in (call, call + 1)}
    lines_of: dict[str, str] = {}
    landing: dict[int, Message] = {}
    pending: list[str] = []
    after_reply = False
    for index in range(min(calls), len(messages)):
        message = messages[index]
        if index in gone:
            if message["role"] == "user":  # its carried lines are of earlier turns: before the turn's own
                pending.extend([*_carried(message, store), *_stored_call_lines(history, index - 1, store, lines_of)])
            after_reply = False
            continue
        if pending and after_reply and message["role"] == "user":
            landing[index] = _with_index(message, pending)
            pending = []
        after_reply = message["role"] == "assistant"
    if pending:
        raise ValueError("a folded stretch has no reply after it to carry its index")
    return landing, gone, lines_of


def _carried(message: Message, store: ResultStore) -> list[str]:
    """The index lines a folded results message carried; its results into the store (first write wins)."""
    carried: list[str] = []
    for block in blocks_of(message):
        if block.get("type") == "tool_result":
            store.put(result_ref(str(block.get("tool_use_id", ""))), result_text(block))
        elif is_index(block):
            carried.extend(str(block.get("text", "")).split("\n")[1:])
    return carried


def _stored_call_lines(history: History, call: int, store: ResultStore, lines_of: dict[str, str]) -> list[str]:
    """The index lines of a folded call; its inputs and words into the store first."""
    message = history.messages[call]
    ids = [str(b.get("id", "")) for b in blocks_of(message) if b.get("type") == "tool_use"]
    for tool_use_id in ids:
        store.put(input_ref(tool_use_id), readable_input(history.records[tool_use_id].input))
    lines = turn_lines(history, call)
    if ids and lines and lines[-1].endswith(WORDS_MARK):
        store.put(words_ref(ids[-1]), _turn_words(message, store))
    lines_of.update(zip(ids, lines))
    return lines


def _with_index(message: Message, lines: list[str]) -> Message:
    """The user message with the index lines before those it already holds (they are of later turns)."""
    blocks: list[Block] = list(blocks_of(message))
    for position, block in enumerate(blocks):
        if is_index(block):
            older = str(block.get("text", "")).split("\n")[1:]
            blocks[position] = {"type": "text", "text": index_text(lines + older)}
            return {**message, "content": blocks}
    return {**message, "content": [*blocks, {"type": "text", "text": index_text(lines)}]}
