"""Request checks the real Messages API makes that matter to an agent.

Each check returns the 400 message the real API would give (same style:
"messages.N: ..."), so tests can prove that every history the agent sends
is one the real API accepts.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator
from typing import Any

from ..context.images import (MANY_IMAGES, MANY_IMAGES_DIMENSION, MAX_DIMENSION, MAX_IMAGE_BASE64,
                              MAX_IMAGES_PER_REQUEST, MEDIA_TYPES, is_image, sniff)
from ..context.prompt_cache import breakpoint_problem
from .compaction import compaction_placement_error, starts_with_compaction
from .system_messages import placement_error

ROLES = ("user", "assistant", "system")  # "system": mid-conversation system messages (system_messages.py)

# Block types that may not carry cache_control.
_UNCACHEABLE = ("thinking", "redacted_thinking")
_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def request_error(body: Any) -> str | None:
    """The invalid_request_error message for `body`, or None if it is valid."""
    if not isinstance(body, dict):
        return "request body must be a JSON object"
    for check in (_check_top_level, _check_messages, _check_tool_pairing, _check_images, _check_cache_control,
                  _check_thinking):
        problem = check(body)
        if problem:
            return problem
    return None


def _check_top_level(body: dict) -> str | None:
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model: Field required"
    max_tokens = body.get("max_tokens")
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        return "max_tokens: Field required (a positive integer)"
    system = body.get("system")
    if system is not None and not isinstance(system, str):
        if not isinstance(system, list) or any(not isinstance(b, dict) or b.get("type") != "text" for b in system):
            return "system: Input should be a string or a list of text blocks"
    tools = body.get("tools")
    if tools is not None:
        if not isinstance(tools, list):
            return "tools: Input should be a valid list"
        names = [t.get("name") for t in tools if isinstance(t, dict)]
        if len(names) != len(set(names)):
            return "tools: Tool names must be unique."
        bad = [n for n in names if not isinstance(n, str) or not _TOOL_NAME.match(n)]
        if bad:
            return f"tools: name {bad[0]!r} does not match pattern '^[a-zA-Z0-9_-]{{1,64}}$'"
    return None


def _check_messages(body: dict) -> str | None:
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ROLES:
            return f"messages.{i}.role: Input should be 'user', 'assistant' or 'system'"
        content = message.get("content")
        if isinstance(content, list):
            if any(not isinstance(b, dict) or "type" not in b for b in content):
                return f"messages.{i}.content: each content block must be an object with a type"
        elif not isinstance(content, str):
            return f"messages.{i}.content: Input should be a string or a list of content blocks"
        is_final_assistant = i == len(messages) - 1 and message["role"] == "assistant"
        if not content and not is_final_assistant and message["role"] != "system":
            return (f"messages.{i}: all messages must have non-empty content "
                    "except for the optional final assistant message")
    problem = placement_error(messages) or compaction_placement_error(messages)
    if problem:
        return problem
    if messages[0]["role"] != "user" and not starts_with_compaction(messages):
        return "messages.0.role: first message must use the \"user\" role"
    # mid-conversation system messages stand outside the user/assistant alternation (placement checked above)
    turns = [(i, m["role"]) for i, m in enumerate(messages) if m["role"] != "system"]
    for (_, before), (i, role) in zip(turns, turns[1:]):
        if role == before:
            return f"messages.{i}: roles must alternate between \"user\" and \"assistant\""
    return None


def _blocks(message: dict) -> list[dict]:
    content = message.get("content")
    return content if isinstance(content, list) else []


def _check_tool_pairing(body: dict) -> str | None:
    messages = body["messages"]
    seen_ids: set[str] = set()
    for i, message in enumerate(messages):
        if message["role"] == "assistant":
            ids = [b.get("id") for b in _blocks(message) if b.get("type") == "tool_use"]
            for tool_id in ids:
                if not tool_id or tool_id in seen_ids:
                    return f"messages.{i}: tool_use ids must be unique and non-empty (got {tool_id!r})"
                seen_ids.add(tool_id)
            if not ids:
                continue
            following = messages[i + 1] if i + 1 < len(messages) else None
            answered = {b.get("tool_use_id") for b in _blocks(following or {}) if b.get("type") == "tool_result"}
            missing = [t for t in ids if t not in answered]
            if missing:
                return (f"messages.{i + 1}: `tool_use` ids were found without `tool_result` blocks "
                        f"immediately after: {', '.join(map(str, missing))}. Each `tool_use` block must have a "
                        f"corresponding `tool_result` block in the next message.")
        else:
            results = [b for b in _blocks(message) if b.get("type") == "tool_result"]
            if not results:
                continue
            previous = messages[i - 1] if i > 0 else {}
            offered = {b.get("id") for b in _blocks(previous) if b.get("type") == "tool_use"}
            for j, block in enumerate(_blocks(message)):
                if block.get("type") == "tool_result" and block.get("tool_use_id") not in offered:
                    return (f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: "
                            f"{block.get('tool_use_id')}. Each `tool_result` block must have a corresponding "
                            f"`tool_use` block in the previous message.")
    return None


def _cache_marked(body: dict) -> list[tuple[str, dict]]:
    """Blocks carrying cache_control, in the order the API caches them: tools, system, messages."""
    marked: list[tuple[str, dict]] = [(f"tools.{j}", t) for j, t in enumerate(body.get("tools") or [])
                                      if isinstance(t, dict) and "cache_control" in t]
    system = body.get("system")
    if isinstance(system, list):
        marked += [(f"system.{j}", b) for j, b in enumerate(system) if isinstance(b, dict) and "cache_control" in b]
    for i, message in enumerate(body["messages"]):
        marked += [(f"messages.{i}.content.{j}", b) for j, b in enumerate(_blocks(message)) if "cache_control" in b]
    return marked


def _check_cache_control(body: dict) -> str | None:
    marked = _cache_marked(body)
    ttls = [b["cache_control"].get("ttl", "5m") if isinstance(b["cache_control"], dict) else None for _, b in marked]
    problem = breakpoint_problem(ttls)  # tools, system, messages: the order the API caches them
    if problem:
        return problem
    for where, block in marked:
        if block.get("type") in _UNCACHEABLE:
            return f"{where}.cache_control: cache_control cannot be set for {block['type']} blocks"
        if block.get("type") == "text" and not block.get("text"):
            return f"{where}.cache_control: cache_control cannot be set for empty text blocks"
    return None


def _check_thinking(body: dict) -> str | None:
    thinking = body.get("thinking")
    if not isinstance(thinking, dict) or thinking.get("type") != "enabled":
        return None
    budget = thinking.get("budget_tokens")
    if not isinstance(budget, int) or budget < 1024:
        return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
    if budget >= body["max_tokens"]:
        return "`max_tokens` must be greater than `thinking.budget_tokens`"
    return None


# ---------------------------------------------------------------- images

def _images(body: dict) -> Iterator[tuple[str, dict]]:
    """(path, block) of every image of the messages, those inside tool results included."""
    for i, message in enumerate(body["messages"]):
        for j, block in enumerate(_blocks(message)):
            if is_image(block):
                yield f"messages.{i}.content.{j}", block
            elif block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                for k, inner in enumerate(block["content"]):
                    if is_image(inner):
                        yield f"messages.{i}.content.{j}.content.{k}", inner


def _check_images(body: dict) -> str | None:
    """What the API checks of base64 images (limits and sources: context/images.py). The messages
    the real API is seen to give are kept word for word ("image exceeds 5 MB maximum", "Image does
    not match the provided media type", "At least one of the image dimensions exceed max allowed
    size", "Too much media"); the others follow its field-path style."""
    images = list(_images(body))
    if len(images) > MAX_IMAGES_PER_REQUEST:
        return f"Too much media: 0 document pages + {len(images)} images > {MAX_IMAGES_PER_REQUEST}"
    many = len(images) > MANY_IMAGES
    for where, block in images:
        problem = _image_problem(where, block, many)
        if problem:
            return problem
    return None


def _image_problem(where: str, block: dict, many: bool) -> str | None:
    source = block.get("source")
    if not isinstance(source, dict) or source.get("type") not in ("base64", "url", "file"):
        return f"{where}.image.source: Input tag does not match any of the expected tags: 'base64', 'url', 'file'"
    if source["type"] != "base64":
        return None  # fetched by the API: nothing to check here
    media_type, data = source.get("media_type"), source.get("data")
    if media_type not in MEDIA_TYPES:
        allowed = ", ".join(f"'{m}'" for m in MEDIA_TYPES[:-1]) + f" or '{MEDIA_TYPES[-1]}'"
        return f"{where}.image.source.base64.media_type: Input should be {allowed}"
    if not isinstance(data, str) or not data:
        return f"{where}.image.source.base64.data: Field required"
    if len(data) > MAX_IMAGE_BASE64:
        return f"{where}.image.source.base64: image exceeds 5 MB maximum: {len(data)} bytes > {MAX_IMAGE_BASE64} bytes"
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return f"{where}.image.source.base64.data: Input should be valid base64"
    found = sniff(raw)
    if found is None:
        return f"{where}.image.source.base64.data: Could not process image"
    actual, width, height = found
    if actual != media_type:
        return f"{where}.image.source.base64.data: Image does not match the provided media type {media_type}"
    if max(width, height) > MAX_DIMENSION:
        return f"{where}.image.source.base64.data: At least one of the image dimensions exceed max allowed size: " \
               f"{MAX_DIMENSION} pixels"
    if many and max(width, height) > MANY_IMAGES_DIMENSION:
        return (f"{where}.image.source.base64.data: At least one of the image dimensions exceed max allowed size "
                f"for many-image requests: {MANY_IMAGES_DIMENSION} pixels")
    return None
