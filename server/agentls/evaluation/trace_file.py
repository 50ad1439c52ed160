"""Reading a recorded session: a JSON file with a ``messages`` list in the API's format, taken as the API
takes a request (runs of same-role messages are one turn), and checked to be a conversation before any
policy replays it, so a broken file is refused once, plainly, naming the message at fault."""

from __future__ import annotations

import json
import os
from typing import Any

from ..context.blocks import Message
from ..context.history import History


def checked_trace(path: str) -> tuple[str, list[Message]]:
    """load_trace, and the messages checked to be a conversation (check_conversation): what a command does
    once per file before it replays, so no worker meets a broken one."""
    trace_id, messages = load_trace(path)
    check_conversation(path, messages)
    return trace_id, messages


def load_trace(path: str) -> tuple[str, list[Message]]:
    """(id, messages) of a recorded session file; ValueError naming the file when it is not one."""
    with open(path, encoding="utf-8") as handle:
        try:
            data = json.load(handle)
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise ValueError(f"{path}: not JSON: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise ValueError(f"{path}: expected a JSON object with a 'messages' list")
    return str(data.get("id") or os.path.basename(path)), turns_merged(data["messages"])


def turns_merged(messages: list[Any]) -> list[Any]:
    """`messages` with each run of consecutive user (or assistant) messages made one, as the API does with
    them (the SDK's `messages` doc: "Consecutive `user` or `assistant` turns in your request will be
    combined into a single turn"): some harnesses store a reply's text and its tool calls, or a result and
    the user's next words, as separate messages. A merged user turn puts its tool results first (the API
    takes them only there); every other block keeps its order. Anything that is not such a run is left
    as it was, for check_conversation to judge."""
    merged: list[Any] = []
    for message in messages:
        previous: Any = merged[-1] if merged else None
        mine = _blocks_or_none(message) if isinstance(message, dict) else None
        theirs = _blocks_or_none(previous) if isinstance(previous, dict) else None
        if (mine is not None and theirs is not None and message.get("role") in ("user", "assistant")
                and message.get("role") == previous.get("role")):
            blocks = [*theirs, *mine]
            if message["role"] == "user":
                blocks.sort(key=lambda b: b.get("type") != "tool_result")  # stable: results first, in order
            merged[-1] = {**previous, "content": blocks}
        else:
            merged.append(message)
    return merged


def _is_content(value: Any) -> bool:
    """Text, or a list of blocks: what a message's (or a tool result's) content may be."""
    return isinstance(value, str) or (isinstance(value, list) and all(isinstance(b, dict) for b in value))


def _blocks_or_none(message: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The message's content as blocks (a string is one text block, an empty one none); None when it is
    not content (_is_content)."""
    content = message.get("content", "")
    if not _is_content(content):
        return None
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return list(content)


def check_conversation(path: str, messages: list[Any]) -> None:
    """The messages form a conversation the API would take (the history's own rules: roles in turn, every
    tool result answering a tool call before it); ValueError naming the first message that does not."""
    history = History()
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant", "system"):
            raise ValueError(f"{path}: message {index} is not a user, assistant or system message")
        content = message.get("content", "")
        if not _is_content(content):
            raise ValueError(f"{path}: message {index}: content is neither text nor a list of blocks")
        problem = next(filter(None, map(_block_problem, content if isinstance(content, list) else [])), None)
        if problem:
            raise ValueError(f"{path}: message {index}: {problem}")
        try:
            history.append(message)
        except (ValueError, TypeError, KeyError, AttributeError) as error:
            raise ValueError(f"{path}: message {index}: {error}") from None


def _block_problem(block: dict[str, Any]) -> str | None:
    """What makes a block one the replay cannot read (the API refuses it too); None when it is fine."""
    kind = block.get("type")
    if kind == "text" and not isinstance(block.get("text"), str):
        return "a text block's text must be a string"
    if kind == "tool_use" and not isinstance(block.get("input", {}), dict):
        return "a tool_use block's input must be an object"
    if kind == "tool_result" and not _is_content(block.get("content", "")):
        return "a tool_result's content must be text or a list of blocks"
    return None
