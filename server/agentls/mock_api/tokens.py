"""Token estimates and the prompt cache of the mock API.

Tokens are estimated by the agent's own estimate (context/tokens.py: characters
/ 4, rounded up) of the *textual* parts of a request, so the numbers stay close to
what the context accountant on the client side computes for the same history. An image is counted by the
vision guide's rule from its pixel dimensions (context/images.py, where the
source is named), never by its base64.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any
from collections.abc import Callable

from ..context.images import block_image_tokens, is_image
from ..context.prompt_cache import (FIVE_MINUTES, AnthropicCache, Block, CacheUsage, IdealCache,
                                    minimum_cacheable_tokens, new_cache)
from ..context.tokens import CHARS_PER_TOKEN, estimate_tokens
from .tool_search import expanded_tokens_text

# A document (PDF) has no text here; counted as this much, as before (images: by their pixels).
_DOCUMENT_TOKENS = 1_500


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
    if kind == "image":
        return ""  # counted by block_tokens, from its pixels
    if kind == "document":
        return "x" * (_DOCUMENT_TOKENS * CHARS_PER_TOKEN)
    stripped = {k: v for k, v in block.items() if k != "cache_control"}
    return json.dumps(stripped, sort_keys=True)


def block_tokens(block: Any) -> int:
    """Tokens of one content block: its text's, plus its images (nested in a tool result too) by their pixels."""
    tokens = estimate_tokens(len(block_text(block)))
    if is_image(block):
        return tokens + block_image_tokens(block)
    content = block.get("content") if isinstance(block, dict) and block.get("type") == "tool_result" else None
    if isinstance(content, list):
        tokens += sum(block_image_tokens(b) for b in content if is_image(b))
    return tokens


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


def _ttl(block: Any) -> str | None:
    marker = block.get("cache_control") if isinstance(block, dict) else None
    if not isinstance(marker, dict) or marker.get("type") != "ephemeral":
        return None
    return str(marker.get("ttl", FIVE_MINUTES))


def _identity(block: Any) -> str:
    """A block's identity without its cache_control, so a moving breakpoint keeps the prefix."""
    if isinstance(block, dict):
        block = {k: v for k, v in block.items() if k != "cache_control"}
    return json.dumps(block, sort_keys=True)


def request_blocks(body: dict) -> list[Block]:
    """The request as the API caches it: tools, then system, then messages, block by block."""
    # a deferred tool (defer_loading) is not in the context, nor the cached prefix, until a tool_reference loads it
    # there (tool-search-tool docs; mock_api/tool_search.py)
    blocks = [Block(f"tool:{_identity(t)}", estimate_tokens(len(tool_text(t))), _ttl(t))
              for t in body.get("tools") or [] if not (isinstance(t, dict) and t.get("defer_loading") is True)]
    system = body.get("system") or []
    for block in [{"type": "text", "text": system}] if isinstance(system, str) else system:
        blocks.append(Block(f"system:{_identity(block)}", block_tokens(block), _ttl(block)))
    for message in body.get("messages") or []:
        if not isinstance(message, dict):
            continue
        content = message.get("content", "")
        role = message.get("role")
        for block in [{"type": "text", "text": content}] if isinstance(content, str) else content or []:
            loaded = estimate_tokens(len(expanded_tokens_text(body, block))) if isinstance(block, dict) else 0
            blocks.append(Block(f"{role}:{_identity(block)}", block_tokens(block) + loaded, _ttl(block)))
    return blocks


def count_input_tokens(body: dict) -> int:
    return int(sum(b.tokens for b in request_blocks(body)))


class MockCache:
    """The mock API's prompt cache: the shared cache model (context/prompt_cache.py) behind a lock, one per
    model (a cache is one model's: code.claude.com/docs/en/prompt-caching, a model switch makes the next turn
    an uncached one).

    ``kind`` is "anthropic" (the real rules; the minimum cacheable length
    follows the request's model unless ``minimum_tokens`` is given) or
    "ideal" (the shared prefix with the previous request).
    """

    def __init__(self, kind: str = "anthropic", clock: Callable[[], float] = time.monotonic,
                 minimum_tokens: int | None = None) -> None:
        self.kind, self.clock, self.minimum_tokens = kind, clock, minimum_tokens
        new_cache(kind)  # an unknown kind is refused now, not at the first request
        self._models: dict[str, AnthropicCache | IdealCache] = {}
        self._lock = threading.Lock()

    def observe(self, body: dict) -> CacheUsage:
        blocks = request_blocks(body)
        model = str(body.get("model", ""))
        minimum = self.minimum_tokens
        if minimum is None:
            minimum = minimum_cacheable_tokens(model)
        with self._lock:
            cache = self._models.setdefault(model, new_cache(self.kind))
            return cache.request(blocks, self.clock(), minimum)
