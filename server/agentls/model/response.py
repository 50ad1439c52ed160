"""ModelResponse: the plain-data result of one model call (its Usage is context/usage.py's)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..context.usage import Usage

__all__ = ["ModelResponse", "Usage"]


@dataclass
class ModelResponse:
    """One assistant message as plain Anthropic block dicts, ready to append to a history."""

    content: list[dict] = field(default_factory=list)
    stop_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    id: str = ""  # the message id (`msg_…`): the next request's diagnostics.previous_message_id
    # blocks the API dropped or let through although they failed a binding check (`input_transformations`)
    input_transformations: tuple[dict, ...] = ()
    cache_miss: dict | None = None  # `diagnostics.cache_miss_reason`: why the prompt cache missed (None: it did not)
    applied_edits: tuple[dict, ...] = ()  # `context_management.applied_edits`: what server-side editing cleared

    @property
    def text(self) -> str:
        return "".join(b.get("text", "") for b in self.content if b.get("type") == "text")

    @property
    def tool_uses(self) -> list[dict]:
        return [b for b in self.content if b.get("type") == "tool_use"]

    def as_message(self) -> dict:
        return {"role": "assistant", "content": self.content}
