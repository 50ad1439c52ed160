"""The API credentials, read once and then taken out of the process environment.

Commands the agent runs are children of this process: whatever is in its
environment they can read (`env`, or `cat /proc/$PPID/environ`). So the
server and the terminal front ends call `take_from_environment()` first:
ANTHROPIC_API_KEY and ANTHROPIC_AUTH_TOKEN move into this module, leave
`os.environ` (no child inherits them) and, on Linux, are overwritten in the
environment block the kernel shows as /proc/<pid>/environ (removing a
variable only unlinks it; its bytes would stay readable there).
A leaf module: model/ and lsp/ read credentials through `get()`.
"""

from __future__ import annotations

import ctypes
import os
import sys

NAMES = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
_taken: dict[str, str] = {}


def get(name: str) -> str | None:
    """The credential `name`: from the environment if (still, or newly) set there, else as taken."""
    return os.environ.get(name) or _taken.get(name) or None


def take_from_environment() -> None:
    for name in NAMES:
        value = os.environ.get(name)
        if value:
            _taken[name] = value
        if name in os.environ:
            _wipe_initial_block(name)
            del os.environ[name]


def _wipe_initial_block(name: str) -> None:
    """Zero the value of `name=` in the C environment, where /proc/<pid>/environ reads it."""
    if not sys.platform.startswith("linux"):
        return
    try:
        entries = ctypes.POINTER(ctypes.c_void_p).in_dll(ctypes.CDLL(None), "environ")
    except (OSError, ValueError, AttributeError):
        return
    prefix = name.encode() + b"="
    index = 0
    while entries[index]:
        address = entries[index]
        entry = ctypes.string_at(address)
        if entry.startswith(prefix):
            ctypes.memset(address + len(prefix), 0, len(entry) - len(prefix))
        index += 1
