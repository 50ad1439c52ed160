"""What makes a message list a valid Anthropic request.

A ``role: "system"`` message stands right after a user message and is followed by the reply or nothing
(https://platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages); the user and
assistant turns around it alternate as if it were not there.
"""

from __future__ import annotations

from .blocks import Message, blocks_of
from .server_results import pair_problems


class StructureError(ValueError):
    pass


def request_problems(messages: list[Message]) -> list[str]:
    """Every way the list breaks the API's rules (empty when valid)."""
    problems: list[str] = []
    if not messages:
        return ["no messages"]
    if messages[0].get("role") != "user":
        problems.append("first message is not from the user")
    turns = [m for m in messages if m.get("role") != "system"]
    if not turns or turns[-1].get("role") != "user":
        problems.append("last message is not from the user")
    previous_turn = -1
    for i, message in enumerate(messages):
        role = message.get("role")
        if role not in ("user", "assistant", "system"):
            problems.append(f"message {i} has role {role!r}")
        if role == "system":
            problems += _system_place_problems(messages, i)
        elif previous_turn >= 0 and role == messages[previous_turn].get("role"):
            problems.append(f"messages {previous_turn} and {i} are both {role}")
        if role != "system":
            previous_turn = i
        blocks = blocks_of(message)
        if not blocks:
            problems.append(f"message {i} is empty")
        uses = [b["id"] for b in blocks if b.get("type") == "tool_use"]
        results = [b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"]
        if role == "assistant" and results:
            problems.append(f"assistant message {i} holds tool_result blocks")
        if role == "assistant":
            problems += pair_problems(blocks, i)
        if role == "user" and uses:
            problems.append(f"user message {i} holds tool_use blocks")
        if uses:
            following = messages[i + 1] if i + 1 < len(messages) else None
            answered = set()
            if following is not None:
                answered = {
                    b.get("tool_use_id") for b in blocks_of(following) if b.get("type") == "tool_result"
                }
            for use_id in uses:
                if use_id not in answered:
                    problems.append(f"tool_use {use_id} in message {i} has no tool_result in the next message")
        if results:
            previous = messages[i - 1] if i else None
            asked = set()
            if previous is not None:
                asked = {b.get("id") for b in blocks_of(previous) if b.get("type") == "tool_use"}
            for use_id in results:
                if use_id not in asked:
                    problems.append(f"tool_result {use_id} in message {i} answers no tool_use of the previous message")
    return problems


def _system_place_problems(messages: list[Message], i: int) -> list[str]:
    """Why system message `i` stands where the API refuses it (empty when it is in place)."""
    problems = []
    if i == 0 or messages[i - 1].get("role") != "user":
        problems.append(f"system message {i} does not follow a user message")
    if i + 1 < len(messages) and messages[i + 1].get("role") != "assistant":
        problems.append(f"system message {i} is followed by a {messages[i + 1].get('role')} message, not the reply")
    return problems


def validate_request(messages: list[Message]) -> None:
    problems = request_problems(messages)
    if problems:
        raise StructureError("; ".join(problems[:5]))
