"""The demo model reading a request: what the user typed, attached and named, and the tool calls so far."""

from __future__ import annotations

import re

from ..context.attachments import parse_attachment, typed_text
from ..context.images import ImageAttachment, image_of_block, is_image
from .memory import message_blocks, normalise_path

_EXTENSIONLESS_FILES = {"Makefile", "Dockerfile", "LICENSE", "Procfile", "Gemfile", "Justfile"}
_NOT_PATHS = {"e.g", "i.e", "etc", "vs"}
_EXTENSION = re.compile(r"^[^/]*[\w-]\.[A-Za-z][A-Za-z0-9]{0,9}$")
_PATH_CHARS = re.compile(r"^[\w./-]+$")
QUOTED = re.compile(r"\"([^\"]+)\"|'([^']+)'|`([^`]+)`")
_SEARCH = re.compile(
    r"\b(?:search(?:\s+for)?|grep(?:\s+for)?|look\s+for|find\s+(?:all\s+)?(?:usages|occurrences|references|uses)\s+of)\s+(\S+)",
    re.IGNORECASE,
)


def prompt_text(message: dict) -> str:
    """What the user typed: the message's text without the files and selections attached to it."""
    return typed_text(message_blocks(message), "\n")


def images_of(message: dict) -> list[ImageAttachment]:
    """The images sent with a prompt (their size read from their header)."""
    return [item for item in (image_of_block(b) for b in message_blocks(message) if is_image(b)) if item is not None]


def attachments_of(message: dict) -> dict[str, str]:
    """Attached text by the path (or uri) it came from."""
    found: dict[str, str] = {}
    for block in message_blocks(message):
        attached = parse_attachment(block)
        if attached is not None:
            found[attached.where.removeprefix("file://")] = attached.text
    return found


def looks_like_path(token: str) -> bool:
    if token in _EXTENSIONLESS_FILES:
        return True
    if "://" in token or token.startswith("-") or token.lower() in _NOT_PATHS or not _PATH_CHARS.match(token):
        return False
    name = token.rstrip("/").rsplit("/", 1)[-1]
    if not re.search(r"[A-Za-z]", name):
        return False
    return bool(_EXTENSION.match(name)) or ("/" in token.strip("/") and not token.endswith("/"))


def named_paths(text: str) -> list[str]:
    """Path-looking tokens in the order the user wrote them, without duplicates."""
    found: list[str] = []
    for raw in text.split():
        token = raw.strip("\"'`()[]{}<>,;:!?*").lstrip("@").rstrip(".")
        if token and looks_like_path(token) and normalise_path(token) not in found:
            found.append(normalise_path(token))
    return found


def tool_uses(messages: list[dict]) -> list[dict]:
    return [b for m in messages if m.get("role") == "assistant"
            for b in message_blocks(m) if b.get("type") == "tool_use"]


def results_by_id(messages: list[dict]) -> dict[str | None, dict]:  # None: a result without an id
    return {b.get("tool_use_id"): b for m in messages if m.get("role") == "user"
            for b in message_blocks(m) if b.get("type") == "tool_result"}


def search_pattern(text: str) -> str | None:
    match = _SEARCH.search(text)
    if not match:
        return None
    quoted = QUOTED.search(text[match.start():])
    if quoted:
        return next(g for g in quoted.groups() if g)
    return match.group(1).strip("\"'`.,;:!?")
