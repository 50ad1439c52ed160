"""The conversation a demo request carries, as the demo model's rules look at it."""

from __future__ import annotations

from dataclasses import dataclass

from ..context.images import ImageAttachment
from ..mock_api.script import Reply
from .answers import not_offered, tool_reply
from .request import attachments_of, images_of, prompt_text, tool_uses


@dataclass(frozen=True)
class DemoConversation:
    messages: list[dict]
    offered: set[str | None]  # None: a tool definition without a name
    thinking: bool

    @property
    def turn(self) -> int:
        return len(self.messages)

    @property
    def uses_by_id(self) -> dict[str | None, dict]:  # None: a tool_use without an id
        return {b.get("id"): b for b in tool_uses(self.messages)}

    @property
    def prompt_index(self) -> int:
        """Where this turn began: the newest user message with typed text (or images)."""
        for i in range(len(self.messages) - 1, -1, -1):
            message = self.messages[i]
            if message.get("role") == "user" and (prompt_text(message).strip() or images_of(message)):
                return i
        return 0

    @property
    def opens_turn(self) -> bool:
        """This request is the turn's first (its last message is the prompt): its reply carries the label."""
        return self.prompt_index == len(self.messages) - 1

    @property
    def images(self) -> list[ImageAttachment]:
        return images_of(self.messages[self.prompt_index]) if self.messages else []

    @property
    def attached(self) -> dict[str, str]:
        return attachments_of(self.messages[self.prompt_index]) if self.messages else {}

    def uses_this_turn(self) -> list[dict]:
        return tool_uses(self.messages[self.prompt_index:])

    def call(self, calls: list[tuple[str, dict]], intro: str) -> Reply:
        missing = [name for name, _ in calls if name not in self.offered]
        if missing:
            return not_offered(missing[0])
        return tool_reply(calls, intro, self.turn, self.thinking, self.opens_turn)
