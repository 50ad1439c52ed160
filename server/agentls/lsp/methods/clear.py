"""agent/clear: the older name of agent/newSession (a fresh conversation; the old one stays in the store)."""

from __future__ import annotations

from typing import Any

from ..errors import answers
from .sessions import new_session



@answers
async def handle(ls, params: Any) -> dict[str, Any]:
    await new_session(ls, params)
    return {}
