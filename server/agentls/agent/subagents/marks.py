"""A subagent as the transcript of record keeps it (a `subagent` record), so a resumed card shows its steps.

Bounded like every card: the last SUBAGENT_STEPS steps, each summary cut at STEP_CHARS (the whole
run stays in its transcript, `context://<task call>/transcript`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SUBAGENT_STEPS = 100
STEP_CHARS = 200


@dataclass(frozen=True)
class SubagentStepMark:
    """One tool call of a subagent, as its card keeps it."""

    tool: str
    summary: str
    is_error: bool = False


@dataclass(frozen=True)
class SubagentMark:
    """A `task` card's subagent: what ran, how it ended, what it cost, where its transcript is."""

    name: str
    model: str
    fork: bool = False
    steps: tuple[SubagentStepMark, ...] = ()
    is_error: bool = False
    requests: int = 0
    tokens: int = 0
    usd: float = 0.0
    transcript: str = ""


def subagent_record(turn_id: str, tool_use_id: str, mark: SubagentMark) -> dict[str, Any]:
    return {"entry": "subagent", "turn": turn_id, "id": tool_use_id, "name": mark.name, "model": mark.model,
            "fork": mark.fork, "steps": [[s.tool[:STEP_CHARS], s.summary[:STEP_CHARS], s.is_error]
                                         for s in mark.steps[-SUBAGENT_STEPS:]],
            "is_error": mark.is_error, "requests": mark.requests, "tokens": mark.tokens, "usd": mark.usd,
            "transcript": mark.transcript}


def _str(body: dict[str, Any], key: str) -> str:
    value = body.get(key, "")
    if not isinstance(value, str):
        raise ValueError(key)
    return value


def _count(body: dict[str, Any], key: str) -> int:
    value = body.get(key, 0)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(key)
    return value


def mark_of(body: dict[str, Any]) -> SubagentMark:
    """The mark a `subagent` record holds (ValueError: a field that does not read; the loader skips it)."""
    steps = tuple(SubagentStepMark(str(s[0])[:STEP_CHARS], str(s[1])[:STEP_CHARS], s[2] is True)
                  for s in (body.get("steps") or [])[-SUBAGENT_STEPS:] if isinstance(s, list) and len(s) == 3)
    usd = body.get("usd", 0.0)
    if not isinstance(usd, (int, float)) or isinstance(usd, bool):
        raise ValueError("usd")
    return SubagentMark(_str(body, "name"), _str(body, "model"), body.get("fork") is True, steps,
                        body.get("is_error") is True, _count(body, "requests"), _count(body, "tokens"), float(usd),
                        _str(body, "transcript"))
