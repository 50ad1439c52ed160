"""Tool names the model sees: `mcp__<server>__<tool>`, valid for the Anthropic API.

The API accepts `^[a-zA-Z0-9_-]{1,64}$`. Other characters become `_`; a name
still too long is cut and ends with a short hash of the full name, so two
long names stay distinct and a name is the same in every session.
"""

from __future__ import annotations

import hashlib
import re

PREFIX = "mcp__"
SEPARATOR = "__"
MAX_LENGTH = 64
VALID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_INVALID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")


def qualified_name(server: str, tool: str) -> str:
    full = f"{PREFIX}{_clean(server)}{SEPARATOR}{_clean(tool)}"
    if len(full) <= MAX_LENGTH:
        return full
    digest = hashlib.sha1(f"{server}\x00{tool}".encode()).hexdigest()[:8]
    return f"{full[:MAX_LENGTH - 9]}_{digest}"


def server_prefix(server: str) -> str:
    """How every qualified name of `server`'s tools begins (a hashed long name keeps its first 55 characters)."""
    return f"{PREFIX}{_clean(server)}{SEPARATOR}"[:MAX_LENGTH - 9]


def is_mcp_name(name: str) -> bool:
    return name.startswith(PREFIX)


def _clean(part: str) -> str:
    return _INVALID_CHARS.sub("_", part) or "_"
