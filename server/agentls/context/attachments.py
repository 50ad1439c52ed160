"""The one text format of an attachment (an @-mention or a selection) in a user message.

An attachment travels as its own text block before what the user typed:

    Attached src/app.py (lines 3-9):
    ```
    …the text…
    ```

Written here, and read back here: the compaction summary must not quote it as
the user's words, the transcript shows what the user typed, and the demo model
answers from it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .images import is_placeholder
from .placeholders import is_changed_note

PREFIX = "Attached "
_HEADER = re.compile(r"^Attached (.+?)(?: \(lines (\d+)-(\d+)\))?:\n")


@dataclass(frozen=True)
class Attachment:
    where: str  # a workspace path or a uri
    text: str
    lines: tuple[int, int] | None = None  # 1-based, inclusive


def attachment_block(item: Attachment) -> dict[str, Any]:
    where = item.where + (f" (lines {item.lines[0]}-{item.lines[1]})" if item.lines else "")
    return {"type": "text", "text": f"{PREFIX}{where}:\n```\n{item.text}\n```"}


def is_attachment(block: dict[str, Any]) -> bool:
    return block.get("type") == "text" and bool(_HEADER.match(block.get("text") or ""))


def parse_attachment(block: dict[str, Any]) -> Attachment | None:
    text = block.get("text") if block.get("type") == "text" else None
    match = _HEADER.match(text or "")
    if match is None or text is None:
        return None
    body = text[match.end():]
    if body.startswith("```\n"):
        body = body[4:]
    if body.endswith("\n```"):
        body = body[:-4]
    lines = (int(match.group(2)), int(match.group(3))) if match.group(2) else None
    return Attachment(match.group(1), body, lines)


def typed_text(blocks: list[dict[str, Any]], separator: str = "\n\n") -> str:
    """What the user typed: the text blocks that are not attachments (nor stand-ins for images let go)."""
    return separator.join(b.get("text", "") for b in blocks
                          if b.get("type") == "text" and not is_attachment(b) and not is_placeholder(b)
                          and not is_changed_note(b))
