"""The one history type: messages as sent, plus an index kept in step.

The index answers "which tool produced this result, with what input, where"
without rescanning, and keeps the small candidate sets the layers read:
results not yet rewritten (in arrival order), stale duplicates, large
results and large tool inputs, and where the images are (keep_images.py). Every rewrite is copy-on-write on the
message, so a request handed out earlier never changes under its holder.

Besides user and assistant turns it holds mid-conversation ``role: "system"`` messages, where the
docs place them (https://platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages,
and the SDK's BetaSystemMessageParam: "renders it only for the user turn it follows"): right after a user
turn, and followed by the reply or nothing (never first, never before a user turn, never two in a row).
They are instructions, not conversation: ``last_role`` and the tool pairing look past them, and no layer
rewrites them (they hold no tool result, no image and no assistant prose; fit.py skips them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Collection, Iterable, Sequence

from .blocks import Block, Message, block_chars, blocks_of, message_chars, result_text
from .images import image_data_chars, is_image, message_image_tokens
from .naming import NameIndex
from .server_results import clearable_pairs, in_pair, pair_chars
from .state_blocks import StateBlocks
from .text_results import TextResults
from .tokens import estimate_tokens
from .tool_record import ToolRecord, dedup_key
from .token_sums import TokenSums


PROSE_TYPES = ("text", "thinking", "redacted_thinking")
THINKING_TYPES = ("thinking", "redacted_thinking")
SYSTEM = "system"  # the role of a mid-conversation system message


def prose_chars(message: Message) -> int:
    """Chars of what the prose layer may clear in a message: its text and thinking (what the model wrote, not
    its tool calls) and the API's own tool calls answered inside it (server_results.py)."""
    blocks = blocks_of(message)
    return sum(block_chars(b) for b in blocks if b.get("type") in PROSE_TYPES) + pair_chars(blocks)


def _check_system_place(role: str, previous: str, previous_turn: str | None) -> None:
    """Where a system message may stand (module docstring); raises ValueError elsewhere."""
    if role != SYSTEM:
        raise ValueError(f"two {role} messages in a row")
    if previous == SYSTEM:
        raise ValueError("two system messages in a row (extend the first)")
    if previous_turn != "user":
        raise ValueError("a system message follows a user message")


def last_turn_of(messages: Sequence[Message]) -> int:
    """Index of the last user or assistant message of `messages` (-1 when none): system messages are not turns."""
    index = len(messages) - 1
    while index >= 0 and messages[index]["role"] == SYSTEM:
        index -= 1
    return index


@dataclass
class History:
    """Messages as the model will see them, plus the tool index."""

    large_result_chars: int = 15_000
    large_input_chars: int = 400
    token_of: Callable[[int], int] = estimate_tokens
    messages: list[Message] = field(default_factory=list)
    msg_tokens: TokenSums = field(default_factory=TokenSums)  # per message, with range sums (token_sums.py)
    total_tokens: int = 0
    category_tokens: dict[str, int] = field(
        default_factory=lambda: {"user": 0, "assistant": 0, "tool_results": 0, "system_messages": 0}
    )
    records: dict[str, ToolRecord] = field(default_factory=dict)
    results: list[str] = field(default_factory=list)  # tool_use ids by result arrival
    live: dict[str, None] = field(default_factory=dict)  # results not yet rewritten, in order
    stale: dict[str, None] = field(default_factory=dict)  # live results with a newer same-key result
    large: dict[str, None] = field(default_factory=dict)  # live results above large_result_chars
    live_inputs: dict[str, None] = field(default_factory=dict)  # large tool inputs not yet cleared
    live_texts: dict[int, None] = field(default_factory=dict)  # assistant messages with long text, not yet cleared
    # user messages holding images -> (block index, base64 chars) of each, and their totals
    images: dict[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    image_count: int = 0
    image_chars: int = 0
    _latest_by_key: dict[str, str] = field(default_factory=dict)
    names: NameIndex = field(default_factory=NameIndex)  # which verbatim results the model named lately
    states: StateBlocks = field(default_factory=StateBlocks)  # harness state blocks and the superseded ones
    text_results: TextResults = field(default_factory=TextResults)  # results a harness sent as user text
    protected_tools: frozenset[str] = frozenset({"edit_file", "write_file"})
    protected_max_chars: int = 1_000  # a protected tool's result longer than this is not protected
    kept_input_tools: frozenset[str] = frozenset()  # their inputs are never cleared

    # -- reading -------------------------------------------------------------

    def is_protected(self, record: ToolRecord) -> bool:
        """A short confirmation of a protected tool (an edit's "ok"): kept verbatim, never rewritten."""
        return record.name in self.protected_tools and record.chars <= self.protected_max_chars

    def __len__(self) -> int:
        return len(self.messages)

    def last_turn(self) -> int:
        """Index of the last user or assistant message (-1 when none): system messages are not turns."""
        return last_turn_of(self.messages)

    @property
    def last_role(self) -> str | None:
        """The role of the last turn (a trailing system message belongs to the user turn before it)."""
        index = self.last_turn()
        return self.messages[index]["role"] if index >= 0 else None

    def open_tool_uses(self) -> list[str]:
        """tool_use ids of the last assistant message still waiting for results."""
        if self.last_role != "assistant":
            return []
        return [b["id"] for b in blocks_of(self.messages[self.last_turn()]) if b.get("type") == "tool_use"]

    def open_results_of_last(self) -> list[str]:
        """tool_use ids answered by the last message (when it is a user message)."""
        if self.last_role != "user":
            return []
        return [b["tool_use_id"] for b in blocks_of(self.messages[self.last_turn()])
                if b.get("type") == "tool_result"]

    def result_block(self, tool_use_id: str) -> Block | None:
        record = self.records.get(tool_use_id)
        if record is None or record.result_msg is None:
            return None
        for block in blocks_of(self.messages[record.result_msg]):
            if block.get("type") == "tool_result" and block.get("tool_use_id") == tool_use_id:
                return block
        return None

    def recent_results(self, count: int) -> list[str]:
        return self.results[-count:] if count > 0 else []

    def image_positions(self) -> list[tuple[int, int, int]]:
        """(message, block, base64 chars) of every image of a user message, oldest first (from the index)."""
        return [(i, j, chars) for i in sorted(self.images) for j, chars in self.images[i]]

    # -- appending -----------------------------------------------------------

    def append(self, message: Message) -> None:
        """Append one message; roles must alternate, results must answer the last uses."""
        role = message.get("role")
        if role not in ("user", "assistant", SYSTEM):
            raise ValueError(f"unknown role {role!r}")
        if not self.messages and role != "user":
            raise ValueError("the history must start with a user message")
        if role == SYSTEM or self.last_role == role:
            _check_system_place(role, self.messages[-1]["role"], self.last_role)
        index = len(self.messages)
        blocks = blocks_of(message)
        if role == "user":
            waiting = set(self.open_tool_uses())
            answered = {b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"}
            if waiting - answered:
                raise ValueError(f"tool_use without result: {sorted(waiting - answered)}")
            if answered - waiting:
                # key=str: a tool_result without an id (None) is reported, not a TypeError
                raise ValueError(f"tool_result without tool_use: {sorted(answered - waiting, key=str)}")
        turn = last_turn_of(self.messages)
        self.text_results.add(index, message, self.messages[turn] if turn >= 0 else None)
        self.messages.append(message)
        chars = message_chars(message)
        tokens = self.token_of(chars) + message_image_tokens(blocks)
        self.msg_tokens.append(tokens)
        self.total_tokens += tokens
        self._count(message, +1, chars)
        self._index_images(index, message, blocks)
        self.states.add(index, message)
        if role == "assistant" and prose_chars(message) >= self.large_input_chars:
            self.live_texts[index] = None
        if role == "assistant":
            self.names.add_reply(message)
        for block in blocks:
            if block.get("type") == "tool_use":
                self._index_use(block, index)
            elif block.get("type") == "tool_result":
                self._index_result(block, index)

    def _index_use(self, block: Block, index: int) -> None:
        tool_input = block.get("input") or {}
        record = ToolRecord(
            id=block["id"],
            name=block.get("name", ""),
            input=tool_input,
            key=dedup_key(block.get("name", ""), tool_input),
            use_msg=index,
            input_chars=len(json.dumps(tool_input, ensure_ascii=False)),
        )
        self.records[record.id] = record
        if record.input_chars >= self.large_input_chars and record.name not in self.kept_input_tools:
            self.live_inputs[record.id] = None

    def _index_result(self, block: Block, index: int) -> None:
        record = self.records[block["tool_use_id"]]
        record.result_msg = index
        record.seq = len(self.results)
        record.chars = len(result_text(block))
        record.arrived_chars = record.chars
        record.original_chars = max(record.original_chars, record.chars)
        record.is_error = bool(block.get("is_error"))
        self.results.append(record.id)
        if self.is_protected(record):
            return
        self.live[record.id] = None
        self.names.add_result(record.id, result_text(block))
        if record.chars > self.large_result_chars:
            self.large[record.id] = None
        if record.key is not None:
            older = self._latest_by_key.get(record.key)
            if older is not None and older in self.live:
                self.stale[older] = None
            self._latest_by_key[record.key] = record.id

    def _index_images(self, index: int, message: Message, blocks: list[Block]) -> None:
        """Keep `images` in step with message `index`, just appended or replaced."""
        old = self.images.pop(index, ())
        self.image_count -= len(old)
        self.image_chars -= sum(chars for _, chars in old)
        if message["role"] != "user" or isinstance(message.get("content"), str):
            return
        found = tuple((j, image_data_chars(b)) for j, b in enumerate(blocks) if is_image(b))
        if found:
            self.images[index] = found
            self.image_count += len(found)
            self.image_chars += sum(chars for _, chars in found)

    def retire(self, tool_use_id: str) -> None:
        """A result is no longer verbatim: out of the candidate sets and the name index."""
        for index in (self.live, self.stale, self.large):
            index.pop(tool_use_id, None)
        self.names.forget(tool_use_id)

    def tokens_of(self, message: Message) -> int:
        """A message's estimate: its characters by token_of, its images by their pixels (images.py)."""
        return self.token_of(message_chars(message)) + message_image_tokens(blocks_of(message))

    def _count(self, message: Message, sign: int, chars: int | None = None) -> None:
        """Add (sign +1) or take away (-1) a message's tokens by category; `chars`: its message_chars."""
        chars = message_chars(message) if chars is None else chars
        blocks = blocks_of(message)
        if message["role"] == SYSTEM:
            self.category_tokens["system_messages"] += sign * self.token_of(chars)
            return
        if message["role"] == "assistant":
            self.category_tokens["assistant"] += sign * (self.token_of(chars) + message_image_tokens(blocks))
            return
        results = sum(len(result_text(b)) for b in blocks if b.get("type") == "tool_result")
        self.category_tokens["tool_results"] += sign * self.token_of(results)
        self.category_tokens["user"] += sign * (self.token_of(chars - results) + message_image_tokens(blocks))

    def extend_last_user(self, blocks: list[Block]) -> None:
        """Add blocks to a trailing user message (e.g. a prompt after a cancelled call); a system message
        after it stays after it (nothing after the last user turn was answered, so no thinking binds to it)."""
        if self.last_role != "user":
            raise ValueError("the last message is not from the user")
        index = self.last_turn()
        old = self.messages[index]
        self.replace_message(index, {**old, "content": [*blocks_of(old), *blocks]})

    def extend_last_system(self, blocks: list[Block]) -> None:
        """Add blocks to a trailing system message: two system messages in a row are one."""
        if not self.messages or self.messages[-1]["role"] != SYSTEM:
            raise ValueError("the last message is not a system message")
        old = self.messages[-1]
        self.replace_message(len(self.messages) - 1, {**old, "content": [*blocks_of(old), *blocks]})

    def system_messages_before(self, cut: int) -> list[Message]:
        """The system messages before index `cut`, oldest first (a compaction restates them)."""
        return [m for m in self.messages[:cut] if m["role"] == SYSTEM]

    # -- rewriting (copy-on-write) ---------------------------------------------

    def _replace_block(self, msg_index: int, match: Callable[[Block], bool], new_block: Block) -> None:
        old = self.messages[msg_index]
        self.replace_message(msg_index, {**old, "content": [new_block if match(b) else b for b in blocks_of(old)]})

    def replace_message(self, msg_index: int, new_message: Message) -> None:
        """Put `new_message` in place of message `msg_index` (copy-on-write), counts and image index in step."""
        old = self.messages[msg_index]
        self._count(old, -1)
        self._count(new_message, +1)
        self.messages[msg_index] = new_message
        self._index_images(msg_index, new_message, blocks_of(new_message))
        self.states.replaced(msg_index, new_message)
        self.text_results.replaced(msg_index, new_message)
        tokens = self.tokens_of(new_message)
        self.total_tokens += tokens - self.msg_tokens[msg_index]
        self.msg_tokens[msg_index] = tokens

    def rewrite_result(self, tool_use_id: str, text: str, state: str) -> int:
        """Replace a result's content for good; returns the tokens freed."""
        record = self.records[tool_use_id]
        if record.rewritten:
            raise ValueError(f"result {tool_use_id} was already rewritten")
        before = self.total_tokens
        block = self.result_block(tool_use_id)
        assert block is not None and record.result_msg is not None
        new_block = {k: v for k, v in block.items() if k != "content"}
        new_block["content"] = text
        self._replace_block(
            record.result_msg,
            lambda b: b.get("type") == "tool_result" and b.get("tool_use_id") == tool_use_id,
            new_block,
        )
        record.chars = len(text)
        record.state = state
        record.rewritten = True
        self.retire(tool_use_id)
        return before - self.total_tokens

    def rewrite_input(self, tool_use_id: str, new_input: dict[str, Any]) -> int:
        record = self.records[tool_use_id]
        if record.input_cleared:
            raise ValueError(f"input of {tool_use_id} was already rewritten")
        before = self.total_tokens
        old_block = next(
            b for b in blocks_of(self.messages[record.use_msg])
            if b.get("type") == "tool_use" and b.get("id") == tool_use_id
        )
        self._replace_block(
            record.use_msg,
            lambda b: b.get("type") == "tool_use" and b.get("id") == tool_use_id,
            {**old_block, "input": new_input},
        )
        record.input_cleared = True
        self.live_inputs.pop(tool_use_id, None)
        return before - self.total_tokens

    def cut_block(self, msg_index: int, block_index: int, new_block: Block) -> int:
        """Replace any block, even one rewritten before (the last resort, fit.py; an image, keep_images.py; a
        superseded state block, superseded.py; a text result, text_results.py); returns the tokens freed."""
        before = self.total_tokens
        message = self.messages[msg_index]
        blocks = blocks_of(message)  # by position: a bare string's block is made anew by every call
        blocks[block_index] = new_block
        self.replace_message(msg_index, {**message, "content": blocks})
        if new_block.get("type") == "tool_result":
            record = self.records[new_block["tool_use_id"]]
            record.chars = len(result_text(new_block))
            record.state = record.state or "truncated"
            record.rewritten = True
            self.retire(record.id)
        return before - self.total_tokens

    def rewrite_prose(self, msg_index: int, placeholder: str, keep_thinking: bool = False) -> int:
        """Replace the text and thinking blocks of an assistant message, and the server tool calls answered in
        it, by one placeholder block (`keep_thinking`: its thinking stays, for binding.release_thinking)."""
        if msg_index not in self.live_texts:
            raise ValueError(f"message {msg_index} has no prose to clear")
        before = self.total_tokens
        old = self.messages[msg_index]
        cleared = ("text",) if keep_thinking else PROSE_TYPES
        kept: list[Block] = []
        pairs = clearable_pairs(blocks_of(old))
        for block in blocks_of(old):
            if block.get("type") not in cleared and not in_pair(block, pairs):
                kept.append(block)
            elif not any(b.get("type") == "text" and b.get("text") == placeholder for b in kept):
                kept.append({"type": "text", "text": placeholder})
        self.replace_message(msg_index, {**old, "content": kept})
        self.live_texts.pop(msg_index, None)
        return before - self.total_tokens

    def rewrite_thinking(self, msg_index: int, placeholder: str) -> int:
        """Replace the thinking blocks of an assistant message by one placeholder block, its words kept; it
        stays a candidate of the prose layer while its words are long enough."""
        before = self.total_tokens
        old = self.messages[msg_index]
        blocks = [b for b in blocks_of(old) if b.get("type") not in THINKING_TYPES]
        self.replace_message(msg_index, {**old, "content": [{"type": "text", "text": placeholder}, *blocks]})
        if prose_chars(self.messages[msg_index]) < self.large_input_chars:
            self.live_texts.pop(msg_index, None)
        return before - self.total_tokens

    def drop_messages(self, gone: Collection[int]) -> int:
        """Take whole messages out (folded turns: each call with its results, fold_turns.py); the indices
        after the first shift down. Returns the lowest result sequence number taken out (the results after
        it are renumbered). Work: the messages from the first one taken out on, not the whole history."""
        first = min(gone)
        dropped: set[str] = set()
        for position in gone:
            message = self.messages[position]
            self._count(message, -1)
            self.total_tokens -= self.msg_tokens[position]
            self._index_images(position, {"role": "assistant", "content": []}, [])
            dropped |= {b["tool_use_id"] for b in blocks_of(message) if b.get("type") == "tool_result"}
        lowest = min((self.records[i].seq for i in dropped), default=len(self.results))
        for tool_use_id in dropped:
            del self.records[tool_use_id]
            self.retire(tool_use_id)
            self.live_inputs.pop(tool_use_id, None)
        self.results[lowest:] = [i for i in self.results[lowest:] if i not in dropped]
        for seq, tool_use_id in enumerate(self.results[lowest:], lowest):
            self.records[tool_use_id].seq = seq
        kept = [i for i in range(first, len(self.messages)) if i not in gone]
        moved = dict(zip(kept, range(first, first + len(kept))))
        self.messages[first:] = [self.messages[i] for i in kept]
        self.msg_tokens.replace_from(first, [self.msg_tokens[i] for i in kept])
        self.live_texts = {moved.get(i, i): None for i in self.live_texts if i not in gone}
        self.images = {moved.get(i, i): found for i, found in self.images.items()}
        self.states.renumbered(moved, set(gone))
        self.text_results.renumbered(moved, set(gone))
        for position in range(first, len(self.messages)):  # the records of the moved messages point to them
            for block in blocks_of(self.messages[position]):
                if block.get("type") == "tool_use":
                    self.records[block["id"]].use_msg = position
                elif block.get("type") == "tool_result":
                    self.records[block["tool_use_id"]].result_msg = position
        return lowest

    # -- replacing (compaction) ----------------------------------------------

    def rebuilt(self, messages: Iterable[Message]) -> History:
        """A new history over new messages; surviving records keep their state."""
        fresh = History(
            large_result_chars=self.large_result_chars,
            large_input_chars=self.large_input_chars,
            token_of=self.token_of,
            protected_tools=self.protected_tools,
            protected_max_chars=self.protected_max_chars,
            kept_input_tools=self.kept_input_tools,
        )
        fresh.text_results.enabled = self.text_results.enabled
        for message in messages:
            fresh.append(message)
        for tool_use_id, record in fresh.records.items():
            old = self.records.get(tool_use_id)
            if old is None:
                continue
            record.original_chars = old.original_chars
            record.arrived_chars = old.arrived_chars
            record.state = old.state
            record.input_cleared = old.input_cleared
            if old.rewritten:
                record.rewritten = True
                fresh.retire(tool_use_id)
            if old.input_cleared:  # the original input, key and size, as the clearing engine judged them
                record.input, record.key, record.input_chars = old.input, old.key, old.input_chars
                fresh.live_inputs.pop(tool_use_id, None)
        self.names.carried_into(fresh.names)
        fresh.text_results.tool_calls |= self.text_results.tool_calls  # a tail without calls is still that session
        return fresh
