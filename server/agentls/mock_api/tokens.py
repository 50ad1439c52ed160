"""Token estimates and the simulated prompt cache of the mock API.

Tokens are estimated as characters / 4 (rounded up) of the *textual* parts of
a request, so the numbers stay close to what a chars/4 context accountant on
the client side computes for the same history.
"""

from __future__ import annotations

import json
import math
import threading
from dataclasses import dataclass
from typing import Any

# Images have no text; the real API bills a small picture at roughly this much.
_IMAGE_TOKENS = 1_500


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def block_text(block: Any) -> str:
    """The characters of one content block that a tokenizer would see."""
    if isinstance(block, str):
        return block
    if not isinstance(block, dict):
        return json.dumps(block, sort_keys=True)
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind == "thinking":
        return str(block.get("thinking", ""))
    if kind == "redacted_thinking":
        return str(block.get("data", ""))
    if kind in ("tool_use", "server_tool_use"):
        return str(block.get("name", "")) + json.dumps(block.get("input", {}), sort_keys=True)
    if kind == "tool_result":
        return content_text(block.get("content", ""))
    if kind in ("image", "document"):
        return "x" * (_IMAGE_TOKENS * 4)
    stripped = {k: v for k, v in block.items() if k != "cache_control"}
    return json.dumps(stripped, sort_keys=True)


def content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(block_text(b) for b in content)
    return ""


def tool_text(tool: Any) -> str:
    if not isinstance(tool, dict):
        return ""
    return json.dumps({k: v for k, v in tool.items() if k != "cache_control"}, sort_keys=True)


def prompt_segments(body: dict) -> list[tuple[str, str]]:
    """The request as ordered cacheable pieces (identity, counted text): system, tools, messages.

    cache_control markers are left out so a moving breakpoint does not make
    an unchanged prefix look different; the role is part of a message's
    identity but not of its counted text.
    """
    system = content_text(body.get("system", ""))
    segments = [(f"system:{system}", system)]
    segments.extend((f"tool:{text}", text) for text in map(tool_text, body.get("tools") or []))
    for message in body.get("messages") or []:
        if isinstance(message, dict):
            text = content_text(message.get("content", ""))
            segments.append((f"{message.get('role')}:{text}", text))
    return segments


def count_input_tokens(body: dict) -> int:
    return sum(estimate_tokens(text) for _, text in prompt_segments(body))


@dataclass(frozen=True)
class CacheUsage:
    input_tokens: int
    cache_creation_input_tokens: int
    cache_read_input_tokens: int


class PrefixCache:
    """An ideal prompt cache that remembers only the previous request.

    The part of a request identical to the start of the previous one is a
    cache read; everything after it is written to the cache. input_tokens is
    kept at 1, like a real fully-cached request that reports only a few
    uncached framing tokens.
    """

    def __init__(self) -> None:
        self._previous: list[str] = []
        self._lock = threading.Lock()

    def observe(self, body: dict) -> CacheUsage:
        segments = prompt_segments(body)
        identities = [identity for identity, _ in segments]
        with self._lock:
            shared = 0
            for old, new in zip(self._previous, identities):
                if old != new:
                    break
                shared += 1
            self._previous = identities
        read = sum(estimate_tokens(text) for _, text in segments[:shared])
        written = sum(estimate_tokens(text) for _, text in segments[shared:])
        return CacheUsage(input_tokens=1, cache_creation_input_tokens=written, cache_read_input_tokens=read)
