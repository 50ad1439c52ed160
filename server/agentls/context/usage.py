"""Usage: the token counts of one model call (or a sum of them), the one type every layer uses.

The real size of a prompt is input + cache write + cache read tokens: with
caching on, ``input_tokens`` alone is only the uncached tail.
"""

from __future__ import annotations

from dataclasses import dataclass
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
    def from_api(cls, source: Any) -> Usage:
        """From an SDK usage object or dict; missing / None fields count as 0."""
        if source is None:
            return cls()
        split = source.get("cache_creation") if isinstance(source, dict) else getattr(source, "cache_creation", None)
        return cls(_count(source, "input_tokens"), _count(source, "output_tokens"),
                   _count(source, "cache_creation_input_tokens"), _count(source, "cache_read_input_tokens"),
                   _count(split, "ephemeral_1h_input_tokens") if split is not None else 0)

    @property
    def prompt_tokens(self) -> int:
        """Everything the prompt cost, cached or not: the context size of the request."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_creation_input_tokens + other.cache_creation_input_tokens,
            self.cache_read_input_tokens + other.cache_read_input_tokens,
            self.cache_write_1h_tokens + other.cache_write_1h_tokens,
        )
