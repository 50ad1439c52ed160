"""A conversation as a front end shows it: who said what, and which tools ran.

Built from the working history when a session is resumed, so the panel can
show the transcript again (tool results themselves stay with the agent).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..context.attachments import typed_text
from ..context.blocks import blocks_of
from ..context.images import ImageAttachment, image_of_block, is_image


def tool_summary(name: str, tool_input: dict[str, Any]) -> str:
    for key in ("path", "command", "pattern", "query"):
        if isinstance(tool_input.get(key), str):
            return f"{name} {tool_input[key]}"[:200]
    return name


def _result_chars(block: dict[str, Any]) -> int:
    content = block.get("content", "")
    if isinstance(content, str):
        return len(content)
    return sum(len(b.get("text", "")) for b in content if isinstance(b, dict))


@dataclass(frozen=True)
class TranscriptTool:
    id: str
    name: str
    summary: str
    is_error: bool
    result_chars: int


@dataclass
class TranscriptEntry:
    role: str  # "user" | "assistant"
    text: str
    tools: list[TranscriptTool] = field(default_factory=list)
    checkpoint: str | None = None  # user entries: the checkpoint taken before that prompt (a rewind target)
    images: tuple[ImageAttachment, ...] = ()  # user entries: the images sent with the prompt (still carried)


def transcript(messages: list[dict[str, Any]]) -> list[TranscriptEntry]:
    """User prompts (without their attachments, with their images), assistant text and tool calls,
    one entry per turn."""
    results = {b.get("tool_use_id"): b for m in messages if m.get("role") == "user"
               for b in blocks_of(m) if b.get("type") == "tool_result"}
    entries: list[TranscriptEntry] = []
    for message in messages:
        blocks = blocks_of(message)
        if message.get("role") == "user":
            text = typed_text(blocks)
            images = tuple(item for item in (image_of_block(b) for b in blocks if is_image(b)) if item is not None)
            if text.strip() or images:
                entries.append(TranscriptEntry("user", text, images=images))
            continue
        text = "\n\n".join(b.get("text", "") for b in blocks if b.get("type") == "text" and b.get("text"))
        tools = [TranscriptTool(b.get("id", ""), b.get("name", ""), tool_summary(b.get("name", ""), b.get("input") or {}),
                                bool(results.get(b.get("id"), {}).get("is_error")),
                                _result_chars(results.get(b.get("id"), {})))
                 for b in blocks if b.get("type") == "tool_use"]
        if entries and entries[-1].role == "assistant":  # one entry per turn, like the live panel
            previous = entries[-1]
            previous.text = "\n\n".join(t for t in (previous.text, text) if t)
            previous.tools += tools
        else:
            entries.append(TranscriptEntry("assistant", text, tools))
    return entries


def with_checkpoints(entries: list[TranscriptEntry], prompts: list[tuple[str, str]]) -> list[TranscriptEntry]:
    """Give each user entry the id of the checkpoint taken before it, where known.

    `prompts` are (checkpoint id, prompt) of the turns still in the conversation, oldest first. They
    are matched from the end, by text: a compaction may have summarized the oldest prompts away.
    """
    pending = list(prompts)
    for entry in reversed(entries):
        if entry.role != "user" or not pending:
            continue
        for i in range(len(pending) - 1, -1, -1):
            if pending[i][1].strip() == entry.text.strip():
                entry.checkpoint = pending[i][0]
                del pending[i:]
                break
    return entries
