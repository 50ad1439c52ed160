"""What the demo model may answer from memory: a file it read earlier, unless that read no longer stands
for the file (issue 33.3). Rules a real model is told by the placeholders and the agent's notes."""

from __future__ import annotations

from typing import Any

from ..context.placeholders import CHANGED_MARK, is_changed_note, is_stand_in

Message = dict[str, Any]


def message_blocks(message: Message) -> list[Message]:
    """A message's content as blocks (a string is one text block)."""
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def result_text(block: Message) -> str:
    """A tool_result's text (its text blocks joined)."""
    content = block.get("content", "")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")


def normalise_path(path: str) -> str:
    """A workspace path as the demo compares it (no leading ./)."""
    return path[2:] if path.startswith("./") else path


def changed_paths(block: Message) -> list[str]:
    """The files an agent's changed-on-disk note names."""
    named = str(block.get("text", ""))[len(CHANGED_MARK):].split(". What", 1)[0]
    return [normalise_path(p.strip()) for p in named.split(",")]


def out_of_date(path: str, use: Message, results: dict[str | None, Message], messages: list[Message]) -> bool:
    """The earlier read of `path` cannot answer for it: its result is a stand-in (cleared, snipped, cut:
    never the file's text) or gone, or the agent said the file changed on disk after it."""
    result = results.get(use.get("id"))
    if result is None or is_stand_in(result_text(result)):
        return True
    after = next((i for i, m in enumerate(messages) if use in message_blocks(m)), len(messages))
    return any(path in changed_paths(b) for m in messages[after + 1:] if m.get("role") == "user"
               for b in message_blocks(m) if is_changed_note(b))
