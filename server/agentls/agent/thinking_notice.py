"""What the user is told when the API refuses or drops thinking blocks bound to a changed prefix.

The API names a block by its place in the request (`messages.N.content.M`, the form
its errors and `input_transformations` use); the notice says which reply that was
(the tools it called: their cards in the panel) so the user can find it.
Docs: platform.claude.com/docs/en/build-with-claude/preserved-thinking/prefix-checks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from .cache_report import DROPPED, drop_text

_PATH = re.compile(r"messages\.(\d+)")
# the documented wording of the 400, before the sentence that says what changed (when there is one)
_BOILERPLATE = re.compile(r"^\s*(messages\.\d+\.content\.\d+:\s*)?(.*?\"drop_block\"\.)?\s*", re.S)
EXCERPT = 60


def message_index(path: str) -> int | None:
    match = _PATH.search(path)
    return int(match.group(1)) if match else None


def place(path: str, messages: Sequence[dict[str, Any]]) -> tuple[str, list[str]]:
    """(the message `path` names, in words; the tool calls of that message: their cards)."""
    index = message_index(path)
    if index is None or index >= len(messages):
        return path or "an earlier message", []
    content = messages[index].get("content")
    blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    uses = [b for b in blocks if b.get("type") == "tool_use"]
    ids = [str(b.get("id", "")) for b in uses if b.get("id")]
    if uses:
        names = ", ".join(dict.fromkeys(str(b.get("name", "?")) for b in uses))
        return f"{path}, the reply that called {names}", ids
    text = " ".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text").strip()
    if text:
        short = text if len(text) <= EXCERPT else text[:EXCERPT - 1] + "…"
        return f"{path}, the reply “{short}”", ids
    return path, ids


def what_changed(detail: str) -> str:
    """The API's words past the documented 400 (the path, "Invalid `signature`… "drop_block"."): what changed."""
    return _BOILERPLATE.sub("", detail, count=1).strip().rstrip(".")


def retry_text(path: str, detail: str, messages: Sequence[dict[str, Any]]) -> tuple[str, list[str]]:
    """The notice of a prefix-mismatch 400 answered by sending the request again with drop_block."""
    where, ids = place(path, messages)
    said = what_changed(detail) or "the conversation before it changed"
    return (f"The API refused a thinking block ({where}): {said}. Sent again with drop_block; "
            "the model's earlier reasoning from there on is dropped."), ids


def dropped_text(transformations: Sequence[dict[str, Any]], messages: Sequence[dict[str, Any]]
                 ) -> tuple[str, str, list[str], int]:
    """(the notice, the first path, its cards, the block count) of the thinking an answer says was dropped;
    ("", "", [], 0) when it dropped none."""
    dropped = [t for t in transformations if t.get("type") == DROPPED]
    if not dropped:
        return "", "", [], 0
    first = str(dropped[0].get("path", ""))
    where, ids = place(first, messages)
    reasons = ", ".join(dict.fromkeys(drop_text(str(t.get("reason", ""))) for t in dropped))
    count = len(dropped)
    return (f"The API dropped {count} thinking block{'s' if count != 1 else ''} from {where} on ({reasons}): "
            "the model no longer sees its reasoning there."), first, ids, count
