"""ModelResponse and Usage: the plain-data result of one model call."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def _count(source: Any, name: str) -> int:
    value = source.get(name) if isinstance(source, dict) else getattr(source, name, None)
    return int(value or 0)  # the API sends null for fields it does not know


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_write_1h_tokens: int = 0  # the part of cache_creation_input_tokens written with a 1-hour TTL

    @classmethod
    def from_api(cls, source: Any) -> "Usage":
        """From an SDK usage object or dict; missing / None fields count as 0."""
        if source is None:
            return cls()
        split = source.get("cache_creation") if isinstance(source, dict) else getattr(source, "cache_creation", None)
        return cls(*(_count(source, n) for n in
                      ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")),
                   _count(split, "ephemeral_1h_input_tokens") if split is not None else 0)

    @property
    def prompt_tokens(self) -> int:
        """Everything the prompt cost, cached or not: the context size of the request."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_creation_input_tokens + other.cache_creation_input_tokens,
            self.cache_read_input_tokens + other.cache_read_input_tokens,
            self.cache_write_1h_tokens + other.cache_write_1h_tokens,
        )

    def as_protocol(self) -> dict[str, int]:
        """The `Usage` shape of docs/protocol.md."""
        return {
            "inputTokens": self.input_tokens,
            "outputTokens": self.output_tokens,
            "cacheReadTokens": self.cache_read_input_tokens,
            "cacheWriteTokens": self.cache_creation_input_tokens,
        }


@dataclass
class ModelResponse:
    """One assistant message as plain Anthropic block dicts, ready to append to a history."""

    content: list[dict] = field(default_factory=list)
    stop_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    model: str = ""

    @property
    def text(self) -> str:
        return "".join(b.get("text", "") for b in self.content if b.get("type") == "text")

    @property
    def tool_uses(self) -> list[dict]:
        return [b for b in self.content if b.get("type") == "tool_use"]

    def as_message(self) -> dict:
        return {"role": "assistant", "content": self.content}
