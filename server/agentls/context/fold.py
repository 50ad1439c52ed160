"""Folding settled turns into an index: what was done and where the originals are, without a model call.

A compaction keeps a verbatim tail after its summary (compact.py ``choose_cut``). Some of the tail's turns
are already settled: tool calls whose results no later message refers to any more. Such a turn is folded:
its messages leave the request and one line of an **index** says what was done (the tool and its target,
how large the result was) and where the original is (``context://<tool_use_id>``, stored before it goes, so
``read_file`` of the ref returns it: nothing is lost).

**Settled**, precisely: a turn is an assistant message whose blocks are tool calls and text only, followed by
a user message of tool results only (no words of the user, no system message: those are never folded); it
is settled when none of its results' *distinctive words* (8+ characters of identifier or path characters:
``[A-Za-z_][A-Za-z0-9_./-]{7,}``, the words a later reply names when it uses a result) that the result showed
first appears in a later reply of the tail (its text or a tool call's input: what the model itself names
again; a later result showing the same word is no use of this one). A folded turn leaves as a whole (its
call and its results: a ``tool_result`` never loses its ``tool_use``) and only where a reply follows it, so
the roles still alternate; never the newest turn (its results may not have been seen). The index lists the
folded turns in order; the unsettled ones stay verbatim where they were.

**When** (priced as everything else): a fold rewrites the prompt from its first folded message. It is made
only where that prefix is rewritten anyway: at a compaction, whose summary replaces everything before the
tail, so the cache is written anew from there and, on a model that binds thinking to its prefix, the kept
turns have already lost their thinking (binding.py). There the fold costs nothing extra and saves the
re-write of the folded turns (write price) plus their reads on every later request, less the index line;
it is made when the index is smaller than what it replaces (:func:`plan_fold` checks it).

Pure: no I/O but the store it is handed; the work is bounded by the tail (a share of the window).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .blocks import Block, Message, blocks_of, result_text
from .history import History
from .store import ResultStore, result_ref

FOLD_MARK = "[Settled turns folded: what was done, each original readable by its ref]"
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]{7,}")
TARGET_CHARS = 80


@dataclass
class Fold:
    start: int  # the compaction's cut: where the tail begins
    turns: list[int]  # the folded turns: the index of each one's reply (its results follow it)
    lines: list[str]
    folded_tokens: int  # what the folded messages held

    @property
    def text(self) -> str:
        return index_text(self.lines)

    def kept(self, messages: list[Message]) -> list[Message]:
        """The tail from `start` without the folded turns (it still starts with a reply)."""
        gone = {i for turn in self.turns for i in (turn, turn + 1)}
        return [m for i, m in enumerate(messages[self.start:], self.start) if i not in gone]


def is_index(block: Block) -> bool:
    """A text block holding a fold's index."""
    return block.get("type") == "text" and str(block.get("text", "")).startswith(FOLD_MARK)


# Ends an index line whose turn's own words are at the line's ref + /words (the system prompt says so once,
# agent/prompt.py: not every index).
WORDS_MARK = "+words"


def index_text(lines: list[str]) -> str:
    return FOLD_MARK + "\n" + "\n".join(lines)


def words_of(text: str) -> set[str]:
    return set(WORD.findall(text))


def _message_words(message: Message) -> set[str]:
    found: set[str] = set()
    for block in blocks_of(message):
        kind = block.get("type")
        if kind == "text":
            found |= words_of(str(block.get("text", "")))
        elif kind == "tool_use":
            found |= words_of(str(block.get("input", "")))
        elif kind == "tool_result":
            found |= words_of(result_text(block))
    return found


def _is_tool_turn(call: Message, results: Message) -> bool:
    if call["role"] != "assistant" or results["role"] != "user":
        return False
    call_kinds = {b.get("type") for b in blocks_of(call)}
    if "tool_use" not in call_kinds or not call_kinds <= {"tool_use", "text", "thinking", "redacted_thinking"}:
        return False
    return all(b.get("type") == "tool_result" for b in blocks_of(results))


def index_lines(history: History, call: Message) -> list[str]:
    """One line per tool call of a folded turn: the tool, its target, the result's size and its ref."""
    lines = []
    for block in blocks_of(call):
        if block.get("type") != "tool_use":
            continue
        record = history.records.get(block.get("id", ""))
        target = record.path_or_command if record is not None else ""
        if len(target) > TARGET_CHARS:
            target = target[:TARGET_CHARS - 3] + "..."
        size = f"{record.original_chars:,} chars" if record is not None else "?"  # what its ref holds
        lines.append(f"- {block.get('name', '?')} {target}".rstrip() + f" ({size}): {result_ref(block.get('id', ''))}")
    return lines


def plan_fold(history: History, start: int, token_of: Callable[[int], int]) -> Fold | None:
    """The settled turns of the tail ``messages[start:]`` (start: a reply), or None when there is none or
    the index would not be smaller than what it replaces."""
    messages = history.messages
    # a turn is folded only when a reply follows it: removing it leaves the roles alternating
    turns = [i for i in range(start, len(messages) - 2, 2)
             if _is_tool_turn(messages[i], messages[i + 1]) and messages[i + 2]["role"] == "assistant"]
    if not turns:
        return None
    # words the model names after each message, newest first (one pass over the tail)
    later: dict[int, set[str]] = {}
    seen: set[str] = set()
    for index in range(len(messages) - 1, start, -1):
        later[index] = set(seen)
        if messages[index]["role"] == "assistant":  # what the model itself names again (a later result is not)
            seen |= _message_words(messages[index])
    shown = _message_words(messages[start - 1]) if start > 0 else set()  # the request before the tail
    settled = []
    wanted = set(turns)
    for index in range(start, len(messages)):
        message = messages[index]
        if index - 1 in wanted:  # the results of a tool turn: the words they showed first
            first_shown = set().union(*(words_of(result_text(b)) for b in blocks_of(message))) - shown
            if not first_shown & later[index]:
                settled.append(index - 1)
            shown |= first_shown
        else:
            shown |= _message_words(message)  # a call names its own target: not its result's word
    if not settled:
        return None
    lines = [line for index in settled for line in index_lines(history, messages[index])]
    folded = sum(history.msg_tokens[i] + history.msg_tokens[i + 1] for i in settled)
    fold = Fold(start, settled, lines, folded)
    if token_of(len(fold.text)) >= folded:
        return None
    return fold


def store_folded(history: History, fold: Fold, store: ResultStore) -> None:
    """Every folded result readable by its ref (first write wins), before the messages go."""
    for turn in fold.turns:
        for block in blocks_of(history.messages[turn + 1]):
            if block.get("type") == "tool_result":
                store.put(result_ref(block["tool_use_id"]), result_text(block))
