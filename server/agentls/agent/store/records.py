"""Stored records → a history the API accepts, whatever the rows hold.

A record is (kind, body): `message` {message}, `compaction` {messages, summary,
tokens_before, tokens_after}, `usage` {model, usage, usd, …facts of the request}, `state` {key: value…} (the
agent's state beside the history: its task list, the activated instruction
folders; the newest value of each key counts), `transcript` {entry, …} (what
the user saw: agent/transcript.py reads those). Every row is checked on
its own; one that does not decode (torn text, wrong types, unknown kind) is
skipped and counted, never fatal. `repaired` then makes the message list valid:
roles alternate, it starts with the user, every tool_use is answered
(an open one gets an "interrupted" result), every tool_result answers one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...context.blocks import Message, blocks_of
from ...context.images import image_of_block
from ...context.structure import request_problems

if TYPE_CHECKING:
    from .views import StoredView

INTERRUPTED = "[interrupted: the session ended before this tool call finished; nothing is known of its result]"
USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
KINDS = ("message", "compaction", "usage", "state", "transcript")
USAGE_KEYS = ("model", "usage", "usd")  # a usage record's own keys; the others are facts (agent/cache_report.py)


@dataclass
class Restored:
    messages: list[Message] = field(default_factory=list)
    usage: list[tuple[str, dict[str, int], float | None]] = field(default_factory=list)  # model, counts, USD paid
    facts: list[dict[str, Any]] = field(default_factory=list)  # beside each usage: its record's other keys, as stored
    state: dict[str, Any] = field(default_factory=dict)  # the newest value of each state key
    rows: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # message, compaction, transcript bodies
    skipped: int = 0  # records that could not be read
    repairs: int = 0  # messages dropped, merged or answered to make the history valid
    # Restored from the working view (views.py): `messages` are then only those after it, as recorded.
    view: StoredView | None = None


def body_of(raw: Any) -> dict[str, Any] | None:
    """A row's body (TEXT, maybe torn, maybe bytes) as a JSON object, or None."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
    if not isinstance(raw, str):
        return None
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def clean_message(value: Any) -> Message | None:
    """A message with a known role and well-formed blocks, or None."""
    if not isinstance(value, dict) or value.get("role") not in ("user", "assistant"):
        return None
    content = value.get("content")
    if isinstance(content, str):
        return {"role": value["role"], "content": content} if content else None
    if not isinstance(content, list):
        return None
    blocks = [b for b in content if _good_block(b)]
    return {"role": value["role"], "content": blocks} if blocks else None


def _good_block(block: Any) -> bool:
    if not isinstance(block, dict) or not isinstance(block.get("type"), str):
        return False
    kind = block["type"]
    if kind == "text":
        return isinstance(block.get("text"), str) and bool(block["text"])
    if kind == "tool_use":
        return isinstance(block.get("id"), str) and isinstance(block.get("name"), str) \
            and isinstance(block.get("input"), dict)
    if kind == "tool_result":
        content = block.get("content", "")
        return isinstance(block.get("tool_use_id"), str) and isinstance(content, (str, list))
    if kind == "image":
        return image_of_block(block) is not None  # a damaged image would have every request refused
    return True  # thinking…: passed on as it was written


def clean_usage(body: dict[str, Any]) -> tuple[str, dict[str, int]] | None:
    numbers = body.get("usage")
    if not isinstance(numbers, dict):
        return None
    model = body.get("model")
    if not isinstance(model, str):
        model = ""
    counts = {name: numbers.get(name, 0) for name in USAGE_FIELDS}  # unknown fields are dropped
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counts.values()):
        return None
    return model, counts


def usage_usd(body: dict[str, Any]) -> float | None:
    """What a request cost when it was made (recorded since the transcript of record); None before."""
    usd = body.get("usd")
    return float(usd) if isinstance(usd, (int, float)) and not isinstance(usd, bool) and usd >= 0 else None


def replay(rows: list[tuple[str, Any]], repair: bool = True) -> Restored:
    """(kind, body) rows in order → the working history (compactions applied) and the usage.
    repair=False: the messages as read (a tail that continues a view; the caller checks it)."""
    restored = Restored()
    messages: list[Message] = []
    for kind, raw in rows:
        body = body_of(raw)
        if body is None or kind not in KINDS:
            restored.skipped += 1
        elif kind == "transcript":
            restored.rows.append((kind, body))  # not the model's: the transcript builder checks it
        elif kind == "message":
            message = clean_message(body.get("message"))
            if message is None:
                restored.skipped += 1
            else:
                messages.append(message)
                restored.rows.append((kind, {"message": message}))
        elif kind == "compaction":
            kept = body.get("messages")
            if not isinstance(kept, list):
                restored.skipped += 1
            else:
                messages = [m for m in map(clean_message, kept) if m is not None]
                restored.rows.append((kind, body))
        elif kind == "state":
            restored.state.update(body)
        else:
            usage = clean_usage(body)
            if usage is None:
                restored.skipped += 1
            else:
                restored.usage.append((*usage, usage_usd(body)))
                restored.facts.append({key: value for key, value in body.items() if key not in USAGE_KEYS})
    restored.messages, restored.repairs = repaired(messages) if repair else (messages, 0)
    return restored


def _interrupted(ids: list[str]) -> list[dict[str, Any]]:
    return [{"type": "tool_result", "tool_use_id": i, "content": INTERRUPTED, "is_error": True} for i in ids]


def _uses(message: Message) -> list[str]:
    return [b["id"] for b in blocks_of(message) if b.get("type") == "tool_use"]


def repaired(messages: list[Message]) -> tuple[list[Message], int]:
    """A valid history from what was logged, and how many changes that took."""
    cleaned: list[Message] = []
    changes = 0
    seen_uses: set[str] = set()
    for message in messages:
        blocks = blocks_of(message)
        if message["role"] == "assistant":
            # A tool_use id may appear once in a conversation; one seen before is dropped.
            blocks = [b for b in blocks if b.get("type") != "tool_result"
                      and not (b.get("type") == "tool_use" and b["id"] in seen_uses)]
            if not cleaned or not blocks:
                changes += 1
                continue  # a history starts with the user; an empty reply says nothing
            if cleaned[-1]["role"] == "assistant":
                if _uses(cleaned[-1]):  # its results were lost: answer them, then keep this reply
                    cleaned.append({"role": "user", "content": _interrupted(_uses(cleaned[-1]))})
                else:  # two replies in a row: one reply
                    cleaned[-1] = {"role": "assistant", "content": [*blocks_of(cleaned[-1]), *blocks]}
                    seen_uses.update(b["id"] for b in blocks if b.get("type") == "tool_use")
                    changes += 1
                    continue
                changes += 1
            seen_uses.update(b["id"] for b in blocks if b.get("type") == "tool_use")
            cleaned.append({"role": "assistant", "content": blocks})
            continue
        open_ids = _uses(cleaned[-1]) if cleaned and cleaned[-1]["role"] == "assistant" else []
        results = {b["tool_use_id"]: b for b in blocks if b.get("type") == "tool_result"}
        others = [b for b in blocks if b.get("type") not in ("tool_result", "tool_use")]
        if len(others) + len(results) != len(blocks) or set(results) - set(open_ids):
            changes += 1  # results that answer nothing (or a tool_use on the user's side) are dropped
        answers = [results.get(i) or _interrupted([i])[0] for i in open_ids]
        changes += sum(1 for i in open_ids if i not in results)
        if cleaned and cleaned[-1]["role"] == "user":
            if others:  # a prompt that got no answer: the next one joins it
                cleaned[-1] = {"role": "user", "content": [*blocks_of(cleaned[-1]), *others]}
            changes += 1
            continue
        content = [*answers, *others]  # tool results come first in a user message
        if content:
            cleaned.append({"role": "user", "content": content})
        elif cleaned:
            changes += 1
    if cleaned and cleaned[-1]["role"] == "assistant" and _uses(cleaned[-1]):
        cleaned.append({"role": "user", "content": _interrupted(_uses(cleaned[-1]))})
        changes += 1
    while cleaned and _problems(cleaned):  # a last resort that should never run: a shorter valid history
        cleaned.pop()
        changes += 1
    return cleaned, changes


def _problems(messages: list[Message]) -> list[str]:
    probe = messages if messages[-1]["role"] == "user" else [*messages, {"role": "user", "content": "next"}]
    return request_problems(probe)
