"""The API's own tools inside a reply: a `server_tool_use` (or `mcp_tool_use`) and its result block.

When the API runs a tool itself (web_fetch, web_search, code execution, the MCP connector), the call and
its result both stand in the *assistant* message that made it (web_fetch_tool_result, mcp_tool_result,
…), not in a user message of tool_results: the layers that clear results never see them. A fetched page
of 20K characters would ride along in every later request. The prose layer (prose.py) clears them with
the reply's own words: the call and its result leave together (a server call without its result is
refused), one placeholder names where the full text is kept.

Only pairs complete in one message are cleared. A `tool_search_tool_result` stays: it is what loads the
deferred tool definitions later calls use, and it is small.
"""

from __future__ import annotations

import json
from typing import Any

from .blocks import Block, block_chars

SERVER_CALLS = ("server_tool_use", "mcp_tool_use")
KEPT_RESULTS = frozenset({"tool_search_tool_result"})
_UNREADABLE_KEYS = frozenset({"type", "tool_use_id", "media_type", "file_id", "signature"})


def is_server_answer(block: Block) -> bool:
    """A result block of the API's own tools (one kind per tool: web_fetch_tool_result, …)."""
    kind = str(block.get("type", ""))
    return kind.endswith("_tool_result") and kind != "tool_result"


def is_server_result(block: Block) -> bool:
    """A server result the prose layer may clear (with its call)."""
    return is_server_answer(block) and block.get("type") not in KEPT_RESULTS


def pair_problems(blocks: list[Block], index: int) -> list[str]:
    """A server result whose call is not before it in the message, or a call answered nowhere in it (only
    the last block may wait for its answer: a paused turn)."""
    problems, calls = [], set()
    answered = {b.get("tool_use_id") for b in blocks if is_server_answer(b)}
    for position, block in enumerate(blocks):
        if block.get("type") in SERVER_CALLS:
            calls.add(block.get("id"))
            if block.get("id") not in answered and position < len(blocks) - 1:
                problems.append(f"{block.get('type')} {block.get('id')} in message {index} has no result")
        elif is_server_answer(block) and block.get("tool_use_id") not in calls:
            problems.append(f"{block.get('type')} in message {index} answers no server call before it")
    return problems


def clearable_pairs(blocks: list[Block]) -> set[str]:
    """Ids of the server calls in `blocks` whose result is there too."""
    calls = {b.get("id") for b in blocks if b.get("type") in SERVER_CALLS}
    return {str(b["tool_use_id"]) for b in blocks if is_server_result(b) and b.get("tool_use_id") in calls}


def in_pair(block: Block, pairs: set[str]) -> bool:
    """Whether `block` is the call or the result of one of `pairs`."""
    if block.get("type") in SERVER_CALLS:
        return str(block.get("id")) in pairs
    return is_server_result(block) and str(block.get("tool_use_id")) in pairs


def pair_chars(blocks: list[Block]) -> int:
    pairs = clearable_pairs(blocks)
    return sum(block_chars(b) for b in blocks if in_pair(b, pairs)) if pairs else 0


def readable_text(block: Block) -> str:
    """What a reader can use of a server result: its strings (page text, titles, urls, output), in order;
    encrypted payloads and base64 data left out."""
    parts: list[str] = []
    _strings(block, parts)
    return "\n".join(parts)


def _strings(value: Any, parts: list[str]) -> None:
    if isinstance(value, str):
        parts.append(value)
    elif isinstance(value, list):
        for item in value:
            _strings(item, parts)
    elif isinstance(value, dict):
        for key, item in value.items():
            base64 = key == "data" and value.get("type") == "base64"
            if key in _UNREADABLE_KEYS or key.startswith("encrypted") or base64:
                continue
            _strings(item, parts)


def rendered(block: Block) -> str:
    """A call or result of a pair as the store keeps it (cleared prose, rewrite.py)."""
    if block.get("type") in SERVER_CALLS:
        return f"<{block.get('name', 'server tool')} {json.dumps(block.get('input', {}), ensure_ascii=False)}>"
    return f"<{block.get('type')}>\n{readable_text(block)}\n</{block.get('type')}>"
