"""The demo model's answers: its replies (labelled), and how it describes what a tool returned."""

from __future__ import annotations

import re
import uuid

from ..context.images import ImageAttachment
from ..mock_api.script import Reply, Text, Thinking, ToolUse
from .memory import result_text

DEMO_LABEL = "[demo model — offline, no API key]"
PREVIEW_LINES = 10


def counted(n: int, one: str, many: str = "") -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def fence(body: str, language: str = "") -> str:
    # A fence longer than any backtick run inside keeps the block intact.
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{language}\n{body}\n{ticks}"


def language_of(path: str) -> str:
    suffix = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    return {"py": "python", "md": "markdown", "js": "javascript", "ts": "typescript", "json": "json",
            "toml": "toml", "yaml": "yaml", "yml": "yaml", "sh": "bash", "rs": "rust", "go": "go"}.get(suffix, "")


def describe_result(tool: dict, result: dict) -> str:
    name = tool.get("name", "?")
    args = tool.get("input") or {}
    text = result_text(result)
    lines = text.splitlines()
    preview = "\n".join(lines[:PREVIEW_LINES])
    if result.get("is_error"):
        first = lines[0] if lines else "no details"
        subject = args.get("path") or args.get("pattern") or args.get("command")
        return f"`{name}` failed for `{subject}`: {first}" if subject else f"`{name}` failed: {first}"
    if name == "read_file":
        path = str(args.get("path", "?"))
        more = f" It starts with:\n\n{fence(preview, language_of(path))}" if lines else " It is empty."
        return f"**{path}** has {counted(len(lines), 'line')}.{more}"
    if name == "list_files":
        return f"`{args.get('path', '.')}` has {counted(len(lines), 'entry', 'entries')}:\n\n{fence(preview)}"
    if name == "grep_search":
        pattern = args.get("pattern", "")
        if not lines:
            return f"No matches for `{pattern}`."
        return f"Found {counted(len(lines), 'matching line')} for `{pattern}`:\n\n{fence(preview)}"
    if not lines:
        return f"`{name}` returned nothing."
    return f"`{name}` returned {counted(len(lines), 'line')}:\n\n{fence(preview)}"


def labelled(text: str, first: bool, joiner: str = "\n\n") -> str:
    """The label opens a turn's first reply only: one label per reply the user sees, however many calls."""
    return f"{DEMO_LABEL}{joiner}{text}" if first else text


def summary_reply(sections: list[str], thinking: bool, first: bool = True) -> Reply:
    body = "\n\n".join(sections)
    blocks: list = [Thinking("The tool results are in; summarise what they show.")] if thinking else []
    blocks.append(Text(labelled(body, first)))
    return Reply(blocks, stop_reason="end_turn")


def tool_reply(calls: list[tuple[str, dict]], intro: str, turn: int, thinking: bool, first: bool = True) -> Reply:
    blocks: list = [Thinking(f"I need to {intro[0].lower() + intro[1:]}")] if thinking else []
    blocks.append(Text(labelled(intro, first, " ")))
    # Ids are unique like a real model's: the turn number alone repeats across conversations and
    # after a compaction shortens one, and a tool card must never show another call's result.
    nonce = uuid.uuid4().hex[:12]
    blocks += [ToolUse(name, args, f"toolu_demo_{turn:03d}_{nonce}_{i}") for i, (name, args) in enumerate(calls)]
    return Reply(blocks, stop_reason="tool_use")


def help_text(user_text: str) -> str:
    quoted = user_text.strip().replace("\n", " ")
    quoted = quoted[:200] + ("…" if len(quoted) > 200 else "")
    return (
        f"{DEMO_LABEL}\n\nI am a small set of rules standing in for a real model, so I can only do a few things:\n\n"
        "- read files you name (e.g. `README.md` or `src/app.py`)\n"
        "- list files (\"list the files\")\n"
        "- search the workspace (\"search for TODO\")\n"
        "- run a command (\"run ls -la\"): you approve it first\n"
        "- edit a file (\"edit notes.md\", or \"replace `old` with `new` in notes.md\"): you see the diff first\n\n"
        f"You said: > {quoted}\n\nSet an API key to talk to a real model."
    )


def not_offered(tool: str) -> Reply:
    return Reply([Text(f"{DEMO_LABEL}\n\nI would use the `{tool}` tool, but this request does not offer it.")])


def describe_attachment(path: str, text: str) -> str:
    lines = text.splitlines()
    preview = "\n".join(lines[:PREVIEW_LINES])
    more = f" It starts with:\n\n{fence(preview, language_of(path))}" if lines else " It is empty."
    return f"**{path}** (attached) has {counted(len(lines), 'line')}.{more}"


def describe_images(images: list[ImageAttachment]) -> str:
    listed = "\n".join(f"- {item.media_type}, {item.width}x{item.height} px" for item in images)
    return (f"I received {len(images)} image{'s' if len(images) > 1 else ''}:\n\n{listed}\n\n"
            "I am the offline demo model: I read an image's size from its header, and cannot see what it shows. "
            "A real model would describe it.")
