"""Small helpers over Anthropic content blocks (dicts)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

Message = dict[str, Any]
Block = dict[str, Any]


def blocks_of(message: Message) -> list[Block]:
    """The content of a message as a block list (a bare string is one text block)."""
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content or [])


def result_text(block: Block) -> str:
    """The text of a tool_result block, whether its content is a string or blocks."""
    content = block.get("content")
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for item in content:
        if item.get("type") == "text":
            parts.append(item.get("text", ""))
        else:
            parts.append(f"[{item.get('type', 'block')}]")
    return "\n".join(parts)


def shown_text(block: Block) -> str:
    """What a reader sees of a block that opens a compacted history: a text block's text, the summary
    an API `compaction` block carries (empty for anything else)."""
    if block.get("type") == "text":
        return str(block.get("text", ""))
    if block.get("type") == "compaction":
        return str(block.get("content") or "")
    return ""


def block_chars(block: Block) -> int:
    kind = block.get("type")
    if kind == "text":
        return len(block.get("text", ""))
    if kind == "thinking":
        return len(block.get("thinking", ""))
    if kind == "redacted_thinking":
        return len(block.get("data", ""))
    if kind == "tool_use":
        return len(block.get("name", "")) + len(json.dumps(block.get("input", {}), ensure_ascii=False))
    if kind == "tool_result":
        return len(result_text(block))
    if kind == "image":
        return 0  # counted in tokens from its pixels (images.py), never by its base64
    return len(json.dumps(block, ensure_ascii=False))


def message_chars(message: Message) -> int:
    content = message.get("content")
    if isinstance(content, str):
        return len(content)
    return sum(block_chars(b) for b in content or [])


def canonical_json(message: Message) -> str:
    return json.dumps(message, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def message_sha1(message: Message) -> str:
    return hashlib.sha1(canonical_json(message).encode("utf-8")).hexdigest()


def tool_use_ids(message: Message) -> list[str]:
    return [b["id"] for b in blocks_of(message) if b.get("type") == "tool_use"]


def tool_result_ids(message: Message) -> list[str]:
    return [b["tool_use_id"] for b in blocks_of(message) if b.get("type") == "tool_result"]

