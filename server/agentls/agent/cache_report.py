"""Why the prompt cache missed, request by request, and what the API did to the thinking it was sent.

Each answered request leaves its usage and what the API said about it: the cache
diagnosis (`diagnostics.cache_miss_reason`, sent when the request named the
previous response), the `input_transformations` (thinking blocks dropped, or let
through although they failed a binding check) and the `context_management`
edits applied server-side. The ledger keeps them for the session (restored from
its usage records) and computes every figure `/cost`, `/context`, Show Context
and ACP show; front ends only format the report. The words for each reason are
here too, so every front end says the same thing.

Reason types and fields: anthropic SDK 2.17 `types/beta/beta_cache_miss_*.py`,
`beta_thinking_dropped_input_transformation.py`; docs
platform.claude.com/docs/en/build-with-claude/cache-diagnostics ("Cache miss reason types").
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..context.usage import Usage

# the keys a usage record carries beside the counts (agent/store: usage records)
CACHE_MISS, TRANSFORMATIONS, EDITS = "cache_miss", "input_transformations", "applied_edits"
CHANGED_AT = "messages_changed_at"  # ours: the first message sent otherwise than in the request before
MESSAGE_ID, DROP_BLOCK = "message_id", "drop_block"  # ours: the response's id; the request asked for drop_block

MISS_WORDS = {
    "system_changed": "system prompt changed",
    "tools_changed": "tool list changed",
    "messages_changed": "earlier messages changed",
    "model_changed": "model changed",
    "previous_message_not_found": "previous request not found (expired or another process)",
    "unavailable": "unavailable (the API could not tell)",
}
DROP_WORDS = {
    "prefix_binding_mismatch": "the conversation before it changed",
    "model_binding_mismatch": "made by another model",
    "organization_binding_mismatch": "made under another organization",
    "end_user_binding_mismatch": "made for another end user",
}
DROPPED, LET_THROUGH = "thinking_dropped", "thinking_mismatch_allowed"
SHOWN_REQUESTS = 50  # per-request rows in a report (the totals cover the whole session)
SHOWN_MISSES = 5  # the last misses Show Context and /context list


def miss_text(kind: str, where: str = "") -> str:
    """A cache-miss reason in words ("earlier messages changed at messages.12" when the path is known)."""
    words = MISS_WORDS.get(kind, kind.replace("_", " ") or "unknown reason")
    return f"{words} at {where}" if where else words


def drop_text(reason: str) -> str:
    return DROP_WORDS.get(reason, reason.replace("_", " ") or "unknown reason")


@dataclass(frozen=True)
class CacheMiss:
    """One request's `cache_miss_reason`: its type, in words, and the input tokens it cost (when given)."""

    kind: str
    text: str
    missed_tokens: int | None = None


@dataclass(frozen=True)
class RequestCache:
    """One answered request of the session, numbered from 1."""

    number: int
    model: str
    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    miss: CacheMiss | None = None
    thinking_dropped: int = 0  # thinking blocks the API removed from this request
    server_edits: int = 0  # server-side context edits applied to it


@dataclass(frozen=True)
class MissTotal:
    kind: str
    text: str
    count: int
    missed_tokens: int  # summed over the misses that gave a figure


@dataclass(frozen=True)
class DropTotal:
    reason: str
    text: str
    count: int


@dataclass(frozen=True)
class CacheReport:
    """The session's cache diagnoses and thinking transformations, ready to show."""

    requests: tuple[RequestCache, ...] = ()  # the last SHOWN_REQUESTS requests
    total_requests: int = 0
    misses: tuple[MissTotal, ...] = ()  # by reason, most frequent first
    recent_misses: tuple[RequestCache, ...] = ()  # the last SHOWN_MISSES requests that missed, newest last
    thinking_dropped: tuple[DropTotal, ...] = ()  # by reason
    thinking_let_through: int = 0  # blocks that failed a binding check and were shown to the model all the same
    server_edits: int = 0

    @property
    def dropped_blocks(self) -> int:
        return sum(item.count for item in self.thinking_dropped)

    @property
    def notable(self) -> bool:
        """Something to tell: a diagnosed miss, a transformation or a server-side edit (else the report stays out)."""
        return bool(self.misses or self.thinking_dropped or self.thinking_let_through or self.server_edits)


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def clean_miss(value: Any, changed_at: Any = None) -> CacheMiss | None:
    """A `cache_miss_reason` dict as the API (or a stored record) gave it; None when it is not one.
    changed_at: the first message this request sent otherwise than the one before (our own comparison:
    the API names no position), said for `messages_changed`."""
    if not isinstance(value, Mapping) or not isinstance(value.get("type"), str):
        return None
    kind, index = value["type"], _count(changed_at)
    where = f"messages.{index}" if kind == "messages_changed" and index is not None else ""
    return CacheMiss(kind, miss_text(kind, where), _count(value.get("cache_missed_input_tokens")))


def clean_items(value: Any) -> tuple[dict[str, Any], ...]:
    """A list of the API's objects (`input_transformations`, `applied_edits`): its dicts with a string type."""
    if not isinstance(value, (list, tuple)):
        return ()
    return tuple(dict(item) for item in value if isinstance(item, Mapping) and isinstance(item.get("type"), str))


def facts_of(cache_miss: dict | None, transformations: Iterable[dict], edits: Iterable[dict],
             changed_at: int | None = None, *, message_id: str | None = None,
             drop_block: bool = False) -> dict[str, Any]:
    """What a usage record keeps beside the counts: only the keys that say something. The response's id
    and whether the request asked for drop_block let a resumed conversation go on as it was (`chain_of`)."""
    facts: dict[str, Any] = {}
    if message_id:
        facts[MESSAGE_ID] = message_id
    if drop_block:
        facts[DROP_BLOCK] = True
    if cache_miss:
        facts[CACHE_MISS] = dict(cache_miss)
        if changed_at is not None:
            facts[CHANGED_AT] = changed_at
    if items := [dict(item) for item in transformations]:
        facts[TRANSFORMATIONS] = items
    if items := [dict(item) for item in edits]:
        facts[EDITS] = items
    return facts


def chain_of(facts: Iterable[Mapping[str, Any]]) -> tuple[bool, str | None]:
    """(whether the conversation sends drop_block, the id of its last response) from its usage records."""
    drop_block, last_id = False, None
    for item in facts:
        drop_block = drop_block or bool(item.get(DROP_BLOCK))
        last_id = item.get(MESSAGE_ID) if isinstance(item.get(MESSAGE_ID), str) else last_id
    return drop_block, last_id


def first_change(before: list[str], now: list[str]) -> int | None:
    """The index of the first message fingerprint that differs (None: `now` only appends to `before`)."""
    for index, (old, new) in enumerate(zip(before, now)):
        if old != new:
            return index
    return len(now) if len(now) < len(before) else None


def fingerprints(messages: Iterable[Mapping[str, Any]]) -> list[str]:
    """One digest per message, as sent (a changed block anywhere in it changes its digest)."""
    return [hashlib.sha256(json.dumps(m, sort_keys=True, default=str).encode()).hexdigest() for m in messages]


class CacheLedger:
    """Every answered request of the conversation, with what the API said about its cache and its thinking."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.last_sent: list[str] = []  # the previous request's message fingerprints
        self._requests: list[RequestCache] = []
        self._misses: Counter[str] = Counter()
        self._missed_tokens: Counter[str] = Counter()
        self._drops: Counter[str] = Counter()
        self._let_through = 0
        self._edits = 0

    def changed_at(self, messages: Sequence[Mapping[str, Any]]) -> int | None:
        """This request's messages against the previous one's: the first that changed (None: appended only);
        remembered for the next request."""
        now = fingerprints(messages)
        index = first_change(self.last_sent, now) if self.last_sent else None
        self.last_sent = now
        return index

    def add(self, model: str, usage: Usage, facts: Mapping[str, Any]) -> RequestCache:
        """One request (facts: the record's CACHE_MISS, TRANSFORMATIONS, EDITS, as stored or as answered)."""
        miss = clean_miss(facts.get(CACHE_MISS), facts.get(CHANGED_AT))
        transformations = clean_items(facts.get(TRANSFORMATIONS))
        dropped = [str(t.get("reason", "")) for t in transformations if t["type"] == DROPPED]
        edits = len(clean_items(facts.get(EDITS)))
        if miss is not None:
            self._misses[miss.kind] += 1
            self._missed_tokens[miss.kind] += miss.missed_tokens or 0
        self._drops.update(dropped)
        self._let_through += sum(1 for t in transformations if t["type"] == LET_THROUGH)
        self._edits += edits
        request = RequestCache(len(self._requests) + 1, model, usage.input_tokens, usage.cache_read_input_tokens,
                               usage.cache_creation_input_tokens, miss, len(dropped), edits)
        self._requests.append(request)
        return request

    def report(self) -> CacheReport:
        misses = tuple(MissTotal(kind, miss_text(kind), count, self._missed_tokens[kind])
                       for kind, count in self._misses.most_common())
        recent = tuple(r for r in self._requests if r.miss is not None)[-SHOWN_MISSES:]
        drops = tuple(DropTotal(reason, drop_text(reason), count) for reason, count in self._drops.most_common())
        return CacheReport(tuple(self._requests[-SHOWN_REQUESTS:]), len(self._requests), misses, recent, drops,
                           self._let_through, self._edits)
