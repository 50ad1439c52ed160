"""On-demand server-side compaction, as the API does it: one signed `compaction` block, sent back first.

Sources (read 2026-12): https://platform.claude.com/docs/en/build-with-claude/compaction and
…/compaction-on-demand, and the anthropic SDK's BetaCompactionConfigParam / BetaCompactionBlock(Param)
and the `compaction` parameter of messages.create: a request with `compaction: {type: "summarize",
instructions?}` (beta compact-2026-09-04, not with `context_management`) is answered with the
`compaction` block alone (`stop_reason` "compaction"); later requests send it first in `messages`, in place
of the messages it summarizes, unchanged. A block with `content: null` is a failed compaction the server
treats as a no-op.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterator
from typing import Any

COMPACTION_BETA = "compact-2026-09-04"
_FILE = re.compile(r"[\w.-]*[\w-]+\.[A-Za-z][\w]{0,9}\b|(?:[\w.-]+/)+[\w.-]+")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?![\w])")


def _blocks(message: Any) -> list[Any]:
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def _is_compaction(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "compaction"


def starts_with_compaction(messages: list[dict]) -> bool:
    first = _blocks(messages[0]) if messages else []
    return bool(first) and _is_compaction(first[0])


def compaction_placement_error(messages: list[dict]) -> str | None:
    """A compaction block anywhere but first in `messages` (the first block of the first message)."""
    for i, message in enumerate(messages):
        for j, block in enumerate(_blocks(message)):
            if _is_compaction(block) and (i, j) != (0, 0):
                return (f"messages.{i}.content.{j}: a `compaction` block must be sent first in `messages` "
                        "(the first block of the first message), in place of the messages it summarizes")
    return None


def compaction_request_error(body: dict, betas: frozenset[str], entry: dict | None) -> str | None:
    """The 400 for a `compaction` parameter the API would refuse (None: fine, or no compaction asked)."""
    config = body.get("compaction")
    if config is None:
        return None
    if COMPACTION_BETA not in betas:
        return f"compaction: requires the anthropic-beta header {COMPACTION_BETA}"
    if not isinstance(config, dict) or config.get("type") != "summarize":
        return "compaction.type: Input should be 'summarize'"
    if body.get("context_management") is not None:
        return "compaction: cannot be combined with `context_management`"
    capability = ((entry or {}).get("capabilities") or {}).get("compaction") or {}
    if entry is not None and not (capability.get("summarize") or {}).get("supported"):
        return f"compaction.type: 'summarize' is not supported for {body.get('model')}"
    return None


def _signature(secret: bytes, content: str) -> str:
    return "mock-compaction-" + hmac.new(secret, b"compaction\x00" + content.encode(), hashlib.sha256).hexdigest()


def compaction_block(secret: bytes, content: str) -> dict[str, Any]:
    return {"type": "compaction", "content": content, "encrypted_content": None,
            "signature": _signature(secret, content)}


def signature_error(secret: bytes, messages: list[dict], betas: frozenset[str]) -> str | None:
    """The 400 for a compaction block sent back without its beta, altered, or one this API did not make."""
    if not starts_with_compaction(messages):
        return None
    if COMPACTION_BETA not in betas:  # a beta block type: the request that carries it names the beta too
        return f"messages.0.content.0: `compaction` blocks require the anthropic-beta header {COMPACTION_BETA}"
    block = _blocks(messages[0])[0]
    content = block.get("content")
    if content is None:
        return None  # a failed compaction: a no-op, as documented
    signature = block.get("signature")
    if not isinstance(content, str) or not content or not isinstance(signature, str) \
            or not hmac.compare_digest(signature, _signature(secret, content)):
        return ("messages.0.content.0: Invalid `signature` in `compaction` block. Send the block back exactly "
                "as the API returned it.")
    return None


def _texts(value: Any) -> Iterator[str]:
    """Every string inside a request value (block texts, tool inputs, results), in order."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, inner in value.items():
            if key not in ("type", "signature", "cache_control", "id", "tool_use_id", "data"):
                yield from _texts(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _texts(inner)


def summary_of(body: dict) -> str:
    """A short deterministic summary of the conversation that keeps every file name and number it mentions."""
    messages = body.get("messages") or []
    files: dict[str, None] = {}
    numbers: dict[str, None] = {}
    for text in _texts(messages):
        files.update((name, None) for name in _FILE.findall(text))
        numbers.update((number, None) for number in _NUMBER.findall(text))
    instructions = ((body.get("compaction") or {}).get("instructions") or "").strip()
    parts = [f"Summary of the conversation so far ({len(messages)} messages)."]
    if instructions:
        parts.append(f"Focus: {instructions}")
    parts.append("Files: " + (", ".join(files) if files else "none") + ".")
    parts.append("Numbers: " + (", ".join(numbers) if numbers else "none") + ".")
    return " ".join(parts)
