"""What makes a message list a valid Anthropic request."""

from __future__ import annotations

from .blocks import Message, blocks_of


class StructureError(ValueError):
    pass


def request_problems(messages: list[Message]) -> list[str]:
    """Every way the list breaks the API's rules (empty when valid)."""
    problems: list[str] = []
    if not messages:
        return ["no messages"]
    if messages[0].get("role") != "user":
        problems.append("first message is not from the user")
    if messages[-1].get("role") != "user":
        problems.append("last message is not from the user")
    for i, message in enumerate(messages):
        role = message.get("role")
        if role not in ("user", "assistant"):
            problems.append(f"message {i} has role {role!r}")
        if i and role == messages[i - 1].get("role"):
            problems.append(f"messages {i - 1} and {i} are both {role}")
        blocks = blocks_of(message)
        if not blocks:
            problems.append(f"message {i} is empty")
        uses = [b["id"] for b in blocks if b.get("type") == "tool_use"]
        results = [b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"]
        if role == "assistant" and results:
            problems.append(f"assistant message {i} holds tool_result blocks")
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


def validate_request(messages: list[Message]) -> None:
    problems = request_problems(messages)
    if problems:
        raise StructureError("; ".join(problems[:5]))
