"""Cache diagnostics: why a request could not reuse the prompt cache of the one named by its `previous_message_id`.

Sources (read 2026-12): https://platform.claude.com/docs/en/build-with-claude/cache-diagnostics (a request that
carries `diagnostics` leaves a fingerprint under its response's id; the next one names that id and gets the first
divergence — model, system, tools, messages — or null when nothing diverged; no beta header any more) and the
anthropic SDK's BetaDiagnostics / BetaCacheMiss* (`cache_missed_input_tokens`: about what would have been read
from the cache had the prefix matched). A cache is one model's: after a model change none of the earlier prompt is
read (code.claude.com/docs/en/prompt-caching: a model switch makes the next turn an uncached one), so a
`model_changed` miss counts all of it. Only hashes and token counts are kept, as the API does.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from typing import Any

from .tokens import request_blocks

# Request fields besides model/system/tools/messages that change the prompt (a change: "unavailable").
_PROMPT_FIELDS = ("thinking", "tool_choice", "output_config")


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


@dataclass(frozen=True)
class Fingerprint:
    model: str
    system: str
    tools: str
    others: str
    blocks: tuple[tuple[str, int], ...]  # (identity digest, tokens) of every block, tools and system first
    head: int  # how many of them are tools and top-level system (the part before the messages)


def fingerprint(body: dict) -> Fingerprint:
    blocks = tuple((_digest(b.key), int(b.tokens)) for b in request_blocks(body))
    tools = len(body.get("tools") or [])
    system = body.get("system") or []
    head = tools + (1 if isinstance(system, str) else len(system))
    return Fingerprint(str(body.get("model")), _digest([k for k, _ in blocks[tools:head]]),
                       _digest([k for k, _ in blocks[:tools]]),
                       _digest({f: body.get(f) for f in _PROMPT_FIELDS}), blocks, head)


def _missed(before: Fingerprint, now: Fingerprint) -> int:
    """Tokens of the earlier request past the first block the two do not share."""
    shared = 0
    for (a, _), (b, _) in zip(before.blocks, now.blocks):
        if a != b:
            break
        shared += 1
    return sum(tokens for _, tokens in before.blocks[shared:])


def miss_reason(before: Fingerprint | None, now: Fingerprint) -> dict | None:
    """The response's `diagnostics.cache_miss_reason` (None: the earlier prefix is reused whole)."""
    if before is None:
        return {"type": "previous_message_not_found"}
    if before.model != now.model:  # a cache is one model's: none of the earlier prefix can be read, however alike
        return {"type": "model_changed", "cache_missed_input_tokens": sum(tokens for _, tokens in before.blocks)}
    for kind, changed in (("system_changed", before.system != now.system),
                          ("tools_changed", before.tools != now.tools)):
        if changed:
            return {"type": kind, "cache_missed_input_tokens": _missed(before, now)}
    if before.others != now.others:
        return {"type": "unavailable"}
    earlier = before.blocks[before.head:]
    if now.blocks[before.head:before.head + len(earlier)] != earlier:
        return {"type": "messages_changed", "cache_missed_input_tokens": _missed(before, now)}
    return None


class DiagnosticsStore:
    """The fingerprints of requests that asked for diagnostics, by response id."""

    def __init__(self) -> None:
        self._prints: dict[str, Fingerprint] = {}
        self._lock = threading.Lock()

    def diagnose(self, body: dict, message_id: str) -> dict | None:
        """The response's `diagnostics` object for `body` (None when it asked for none), remembering it."""
        config = body.get("diagnostics")
        if not isinstance(config, dict):
            return None
        now = fingerprint(body)
        previous = config.get("previous_message_id")
        with self._lock:
            before = self._prints.get(previous) if isinstance(previous, str) else None
            self._prints[message_id] = now
        if previous is None:
            return None  # the first turn: opted in, nothing to compare
        reason = miss_reason(before, now)
        return {"cache_miss_reason": reason} if reason is not None else None
