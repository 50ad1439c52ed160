"""The very last resort: the oldest turns leave whole when nothing else makes the request fit.

Every other step of the last resort shortens blocks (fit.py cuts those of 600 characters and more,
keep_images.py lets images go). A history of many small blocks (short turns, the notes of images let go,
folded index lines) can still be over the window when no summary can be had: the breaker has tripped,
automatic compaction is off, or the API counts more tokens than the estimate. Then the oldest turns after
the task leave whole, as few as make the request fit: they go to the store as one transcript text, and a
note in the task's message names its ref (lossless, as every rewrite). The task and the newest turn stay;
the first message kept after the task is a reply, so the roles still alternate and every tool result
still follows its call.
"""

from __future__ import annotations

import json

from .blocks import Message, blocks_of, result_text
from .history import PROSE_TYPES, History
from .images import is_image
from .placeholders import reread_hint
from .rewrite import message_prose
from .server_results import clearable_pairs, in_pair
from .store import ResultStore, text_ref

OMITTED_TURNS_MARK = "[Earlier turns left out to fit the window"


def omission_end(history: History, excess: int) -> int | None:
    """k such that leaving messages[1:k] out frees `excess` tokens (the fewest that do; else as many as may
    go), or None when nothing may go. messages[k] is a reply, and not the newest message's call."""
    messages, tokens = history.messages, history.msg_tokens
    note = history.token_of(len(OMITTED_TURNS_MARK) + 120)  # the note the task's message gains
    freed, best = 0, None
    for k in range(1, len(messages) - 1):
        if k > 1:
            freed += tokens[k - 1]
        if k >= 3 and messages[k]["role"] == "assistant":
            best = k
            if freed - note >= excess:
                return k
    return best


def omit_oldest_turns(history: History, store: ResultStore, excess: int) -> int:
    """Leave out the oldest turns after the task until `excess` tokens are freed; returns the lowest result
    sequence number taken out (History.drop_messages), or -1 when nothing could go."""
    end = omission_end(history, excess)
    if end is None:
        return -1
    gone = range(1, end)
    text = "\n\n".join(transcript_entry(history.messages[i]) for i in gone)
    ref = text_ref(text)
    store.put(ref, text)
    note = f"{OMITTED_TURNS_MARK} ({len(gone)} messages, {len(text):,} chars); they read back: {reread_hint(ref)}]"
    first = history.messages[0]
    history.replace_message(0, {**first, "content": [*blocks_of(first), {"type": "text", "text": note}]})
    return history.drop_messages(gone)


def transcript_entry(message: Message) -> str:
    """A message as the stored transcript shows it: its role, its words (text, thinking, the API's own tool
    calls), then its calls, results and images."""
    prose = message_prose(message)
    parts = [prose] if prose else []
    pairs = clearable_pairs(blocks_of(message))  # what message_prose rendered with the words
    for block in blocks_of(message):
        kind = block.get("type")
        if kind == "tool_use":
            parts.append(f"<{block.get('name')} {json.dumps(block.get('input', {}), ensure_ascii=False)}>")
        elif kind == "tool_result":
            parts.append(f"<result of {block.get('tool_use_id')}>\n{result_text(block)}")
        elif is_image(block):
            parts.append("[image]")
        elif kind not in PROSE_TYPES and not in_pair(block, pairs):
            parts.append(json.dumps(block, ensure_ascii=False))
    return f"[{message['role']}]\n" + "\n".join(parts)
