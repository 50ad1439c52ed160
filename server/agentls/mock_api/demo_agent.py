"""The offline demo "model": a few deterministic rules, clearly labelled.

It lets the whole product run without an API key: it asks for the files the
user names, lists or searches when asked, and once tool results are back it
answers in markdown with what it saw. It only calls tools the request offers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .script import Reply, Text, Thinking, ToolUse

DEMO_LABEL = "[demo model — offline, no API key]"

_EXTENSIONLESS_FILES = {"Makefile", "Dockerfile", "LICENSE", "Procfile", "Gemfile", "Justfile"}
_NOT_PATHS = {"e.g", "i.e", "etc", "vs"}
_EXTENSION = re.compile(r"^[^/]*[\w-]\.[A-Za-z][A-Za-z0-9]{0,9}$")
_PATH_CHARS = re.compile(r"^[\w./-]+$")
_QUOTED = re.compile(r"\"([^\"]+)\"|'([^']+)'|`([^`]+)`")
_SEARCH = re.compile(
    r"\b(?:search(?:\s+for)?|grep(?:\s+for)?|look\s+for|find\s+(?:all\s+)?(?:usages|occurrences|references|uses)\s+of)\s+(\S+)",
    re.IGNORECASE,
)
_LIST = re.compile(r"\blist\b|^\s*ls\b|\b(?:what|which)\s+files\b|\bshow\s+(?:me\s+)?(?:the\s+|all\s+)?files\b",
                   re.IGNORECASE)
_LIST_DIR = re.compile(r"\bfiles?\s+(?:in|under|of)\s+([\w./-]+)", re.IGNORECASE)
_PREVIEW_LINES = 10


# ---------------------------------------------------------------- reading the request

def _blocks(message: dict) -> list[dict]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def _text_of(message: dict) -> str:
    return "\n".join(b.get("text", "") for b in _blocks(message) if b.get("type") == "text")


def _result_text(block: dict) -> str:
    content = block.get("content", "")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")


def _normalise(path: str) -> str:
    return path[2:] if path.startswith("./") else path


def looks_like_path(token: str) -> bool:
    if token in _EXTENSIONLESS_FILES:
        return True
    if "://" in token or token.startswith("-") or token.lower() in _NOT_PATHS or not _PATH_CHARS.match(token):
        return False
    name = token.rstrip("/").rsplit("/", 1)[-1]
    if not re.search(r"[A-Za-z]", name):
        return False
    return bool(_EXTENSION.match(name)) or ("/" in token.strip("/") and not token.endswith("/"))


def named_paths(text: str) -> list[str]:
    """Path-looking tokens in the order the user wrote them, without duplicates."""
    found: list[str] = []
    for raw in text.split():
        token = raw.strip("\"'`()[]{}<>,;:!?*").lstrip("@").rstrip(".")
        if token and looks_like_path(token) and _normalise(token) not in found:
            found.append(_normalise(token))
    return found


def _tool_uses(messages: list[dict]) -> list[dict]:
    return [b for m in messages if m.get("role") == "assistant" for b in _blocks(m) if b.get("type") == "tool_use"]


def _results_by_id(messages: list[dict]) -> dict[str, dict]:
    return {b.get("tool_use_id"): b for m in messages if m.get("role") == "user"
            for b in _blocks(m) if b.get("type") == "tool_result"}


def _search_pattern(text: str) -> str | None:
    match = _SEARCH.search(text)
    if not match:
        return None
    quoted = _QUOTED.search(text[match.start():])
    if quoted:
        return next(g for g in quoted.groups() if g)
    return match.group(1).strip("\"'`.,;:!?")


# ---------------------------------------------------------------- answering

def _fence(body: str, language: str = "") -> str:
    # A fence longer than any backtick run inside keeps the block intact.
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{language}\n{body}\n{ticks}"


def _language(path: str) -> str:
    suffix = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    return {"py": "python", "md": "markdown", "js": "javascript", "ts": "typescript", "json": "json",
            "toml": "toml", "yaml": "yaml", "yml": "yaml", "sh": "bash", "rs": "rust", "go": "go"}.get(suffix, "")


def _describe_result(tool: dict, result: dict) -> str:
    name = tool.get("name", "?")
    args = tool.get("input") or {}
    text = _result_text(result)
    lines = text.splitlines()
    preview = "\n".join(lines[:_PREVIEW_LINES])
    if result.get("is_error"):
        first = lines[0] if lines else "no details"
        return f"`{name}` failed for `{args.get('path') or args.get('pattern') or ''}`: {first}"
    if name == "read_file":
        path = str(args.get("path", "?"))
        more = f" It starts with:\n\n{_fence(preview, _language(path))}" if lines else " It is empty."
        return f"**{path}** has {len(lines)} lines.{more}"
    if name == "list_files":
        return f"`{args.get('path', '.')}` has {len(lines)} entries:\n\n{_fence(preview)}"
    if name == "grep_search":
        pattern = args.get("pattern", "")
        if not lines:
            return f"No matches for `{pattern}`."
        return f"Found {len(lines)} matching lines for `{pattern}`:\n\n{_fence(preview)}"
    return f"`{name}` returned {len(lines)} lines:\n\n{_fence(preview)}" if lines else f"`{name}` returned nothing."


def _summary_reply(sections: list[str], thinking: bool) -> Reply:
    body = "\n\n".join(sections)
    blocks: list = [Thinking("The tool results are in; summarise what they show.")] if thinking else []
    blocks.append(Text(f"{DEMO_LABEL}\n\n{body}"))
    return Reply(blocks, stop_reason="end_turn")


def _tool_reply(calls: list[tuple[str, dict]], intro: str, turn: int, thinking: bool) -> Reply:
    blocks: list = [Thinking(f"I need to {intro[0].lower() + intro[1:]}")] if thinking else []
    blocks.append(Text(f"{DEMO_LABEL} {intro}"))
    blocks += [ToolUse(name, args, f"toolu_demo_{turn:03d}_{i}") for i, (name, args) in enumerate(calls)]
    return Reply(blocks, stop_reason="tool_use")


def _help_text(user_text: str) -> str:
    quoted = user_text.strip().replace("\n", " ")
    quoted = quoted[:200] + ("…" if len(quoted) > 200 else "")
    return (
        f"{DEMO_LABEL}\n\nI am a small set of rules standing in for a real model, so I can only do a few things:\n\n"
        "- read files you name (e.g. `README.md` or `src/app.py`)\n"
        "- list files (\"list the files\")\n"
        "- search the workspace (\"search for TODO\")\n\n"
        f"You said: > {quoted}\n\nSet an API key to talk to a real model."
    )


def _not_offered(tool: str) -> Reply:
    return Reply([Text(f"{DEMO_LABEL}\n\nI would use the `{tool}` tool, but this request does not offer it.")])


@dataclass(frozen=True)
class _Conversation:
    messages: list[dict]
    offered: set[str]
    thinking: bool

    @property
    def turn(self) -> int:
        return len(self.messages)

    @property
    def uses_by_id(self) -> dict[str, dict]:
        return {b.get("id"): b for b in _tool_uses(self.messages)}

    def call(self, calls: list[tuple[str, dict]], intro: str) -> Reply:
        missing = [name for name, _ in calls if name not in self.offered]
        if missing:
            return _not_offered(missing[0])
        return _tool_reply(calls, intro, self.turn, self.thinking)


# Each rule answers the user's text or returns None to let the next one try.

def _search_rule(text: str, chat: _Conversation) -> Reply | None:
    pattern = _search_pattern(text)
    if not pattern:
        return None
    args: dict[str, Any] = {"pattern": pattern}
    paths = [p for p in named_paths(text) if p != pattern]
    if paths:
        args["glob"] = paths[0]
    return chat.call([("grep_search", args)], f"Searching for `{pattern}`.")


def _list_rule(text: str, chat: _Conversation) -> Reply | None:
    directory = _LIST_DIR.search(text)
    # "list the files in docs/api" lists; "what does the file README.md say" reads.
    if not _LIST.search(text) or (named_paths(text) and not directory):
        return None
    path = (_normalise(directory.group(1).rstrip("/")) if directory else "") or "."
    return chat.call([("list_files", {"path": path})], f"Listing `{path}`.")


def _read_rule(text: str, chat: _Conversation) -> Reply | None:
    paths = named_paths(text)
    if not paths:
        return None
    read_before = {_normalise(str((u.get("input") or {}).get("path", ""))): u
                   for u in chat.uses_by_id.values() if u.get("name") == "read_file"}
    unread = [p for p in paths if p not in read_before]
    if unread:
        names = ", ".join(f"`{p}`" for p in unread)
        return chat.call([("read_file", {"path": p}) for p in unread], f"Reading {names}.")
    results = _results_by_id(chat.messages)
    sections = [f"I read `{p}` earlier in this conversation. "
                + _describe_result(read_before[p], results.get(read_before[p].get("id"), {})) for p in paths]
    return _summary_reply(sections, chat.thinking)


def demo_reply(body: dict) -> Reply:
    """The demo agent's next assistant message for a (validated) request body."""
    messages: list[dict] = body.get("messages") or []
    thinking = body.get("thinking")
    chat = _Conversation(messages=messages,
                         offered={t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)},
                         thinking=isinstance(thinking, dict) and thinking.get("type") == "enabled")
    last = messages[-1] if messages else {"role": "user", "content": ""}
    if last.get("role") != "user":
        return Reply([Text(f"{DEMO_LABEL} (nothing to add)")], stop_reason="end_turn")

    fresh_results = [b for b in _blocks(last) if b.get("type") == "tool_result"]
    if fresh_results:
        uses_by_id = chat.uses_by_id
        return _summary_reply([_describe_result(uses_by_id.get(r.get("tool_use_id"), {}), r)
                               for r in fresh_results], chat.thinking)

    text = _text_of(last)
    for rule in (_search_rule, _list_rule, _read_rule):
        reply = rule(text, chat)
        if reply is not None:
            return reply
    return Reply([Text(_help_text(text))])
