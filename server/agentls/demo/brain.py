"""The offline demo "model": a few deterministic rules, clearly labelled.

It lets the whole product run without an API key: it asks for the files the
user names, lists or searches when asked, runs a command ("run ls -la") and
edits a file ("edit notes.md", "replace `a` with `b` in notes.md") so the
approval and diff flow can be tried, and once tool results are back it answers
in markdown with what it saw. It only calls tools the request offers, and it
reads only what the user typed: paths inside attached files are not requests.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Any

from ..context.attachments import parse_attachment, typed_text
from ..context.compact import SUMMARY_PROMPT
from ..context.images import ImageAttachment, image_of_block, is_image
from .memory import message_blocks, normalise_path, out_of_date, result_text
from ..mock_api.script import Reply, Text, Thinking, ToolUse

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
_RUN = re.compile(r"^\s*(?:please\s+)?run\s+(?:the\s+command\s+)?(.+?)\s*$", re.IGNORECASE | re.DOTALL)
_REPLACE = re.compile(r"\breplace\s+`([^`]+)`\s+with\s+`([^`]*)`\s+in\s+(\S+)", re.IGNORECASE)
_EDIT = re.compile(r"\b(?:edit|change|modify)\s+(?:the\s+file\s+)?(\S+)", re.IGNORECASE)
_PREVIEW_LINES = 10
_EDIT_MARK = "edited by the agentls demo model"


# ---------------------------------------------------------------- reading the request

def _text_of(message: dict) -> str:
    return "\n".join(b.get("text", "") for b in message_blocks(message) if b.get("type") == "text")


def _typed_text(message: dict) -> str:
    """What the user typed: the message's text without the files and selections attached to it."""
    return typed_text(message_blocks(message), "\n")


def _images(message: dict) -> list[ImageAttachment]:
    """The images sent with a prompt (their size read from their header)."""
    return [item for item in (image_of_block(b) for b in message_blocks(message) if is_image(b)) if item is not None]


def _attachments(message: dict) -> dict[str, str]:
    """Attached text by the path (or uri) it came from."""
    found: dict[str, str] = {}
    for block in message_blocks(message):
        attached = parse_attachment(block)
        if attached is not None:
            found[attached.where.removeprefix("file://")] = attached.text
    return found


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
        if token and looks_like_path(token) and normalise_path(token) not in found:
            found.append(normalise_path(token))
    return found


def _tool_uses(messages: list[dict]) -> list[dict]:
    return [b for m in messages if m.get("role") == "assistant"
            for b in message_blocks(m) if b.get("type") == "tool_use"]


def _results_by_id(messages: list[dict]) -> dict[str | None, dict]:  # None: a result without an id
    return {b.get("tool_use_id"): b for m in messages if m.get("role") == "user"
            for b in message_blocks(m) if b.get("type") == "tool_result"}


def _search_pattern(text: str) -> str | None:
    match = _SEARCH.search(text)
    if not match:
        return None
    quoted = _QUOTED.search(text[match.start():])
    if quoted:
        return next(g for g in quoted.groups() if g)
    return match.group(1).strip("\"'`.,;:!?")


# ---------------------------------------------------------------- answering

def _count(n: int, one: str, many: str = "") -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


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
    text = result_text(result)
    lines = text.splitlines()
    preview = "\n".join(lines[:_PREVIEW_LINES])
    if result.get("is_error"):
        first = lines[0] if lines else "no details"
        subject = args.get("path") or args.get("pattern") or args.get("command")
        return f"`{name}` failed for `{subject}`: {first}" if subject else f"`{name}` failed: {first}"
    if name == "read_file":
        path = str(args.get("path", "?"))
        more = f" It starts with:\n\n{_fence(preview, _language(path))}" if lines else " It is empty."
        return f"**{path}** has {_count(len(lines), 'line')}.{more}"
    if name == "list_files":
        return f"`{args.get('path', '.')}` has {_count(len(lines), 'entry', 'entries')}:\n\n{_fence(preview)}"
    if name == "grep_search":
        pattern = args.get("pattern", "")
        if not lines:
            return f"No matches for `{pattern}`."
        return f"Found {_count(len(lines), 'matching line')} for `{pattern}`:\n\n{_fence(preview)}"
    if not lines:
        return f"`{name}` returned nothing."
    return f"`{name}` returned {_count(len(lines), 'line')}:\n\n{_fence(preview)}"


def _summary_reply(sections: list[str], thinking: bool) -> Reply:
    body = "\n\n".join(sections)
    blocks: list = [Thinking("The tool results are in; summarise what they show.")] if thinking else []
    blocks.append(Text(f"{DEMO_LABEL}\n\n{body}"))
    return Reply(blocks, stop_reason="end_turn")


def _tool_reply(calls: list[tuple[str, dict]], intro: str, turn: int, thinking: bool) -> Reply:
    blocks: list = [Thinking(f"I need to {intro[0].lower() + intro[1:]}")] if thinking else []
    blocks.append(Text(f"{DEMO_LABEL} {intro}"))
    # Ids are unique like a real model's: the turn number alone repeats across conversations and
    # after a compaction shortens one, and a tool card must never show another call's result.
    nonce = uuid.uuid4().hex[:12]
    blocks += [ToolUse(name, args, f"toolu_demo_{turn:03d}_{nonce}_{i}") for i, (name, args) in enumerate(calls)]
    return Reply(blocks, stop_reason="tool_use")


def _help_text(user_text: str) -> str:
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


def _not_offered(tool: str) -> Reply:
    return Reply([Text(f"{DEMO_LABEL}\n\nI would use the `{tool}` tool, but this request does not offer it.")])


@dataclass(frozen=True)
class _Conversation:
    messages: list[dict]
    offered: set[str | None]  # None: a tool definition without a name
    thinking: bool

    @property
    def turn(self) -> int:
        return len(self.messages)

    @property
    def uses_by_id(self) -> dict[str | None, dict]:  # None: a tool_use without an id
        return {b.get("id"): b for b in _tool_uses(self.messages)}

    @property
    def prompt_index(self) -> int:
        """Where this turn began: the newest user message with typed text (or images)."""
        for i in range(len(self.messages) - 1, -1, -1):
            message = self.messages[i]
            if message.get("role") == "user" and (_typed_text(message).strip() or _images(message)):
                return i
        return 0

    @property
    def images(self) -> list[ImageAttachment]:
        return _images(self.messages[self.prompt_index]) if self.messages else []

    @property
    def attached(self) -> dict[str, str]:
        return _attachments(self.messages[self.prompt_index]) if self.messages else {}

    def uses_this_turn(self) -> list[dict]:
        return _tool_uses(self.messages[self.prompt_index:])

    def call(self, calls: list[tuple[str, dict]], intro: str) -> Reply:
        missing = [name for name, _ in calls if name not in self.offered]
        if missing:
            return _not_offered(missing[0])
        return _tool_reply(calls, intro, self.turn, self.thinking)


# Each rule answers the user's text or returns None to let the next one try.

def _run_rule(text: str, chat: _Conversation) -> Reply | None:
    match = _RUN.match(text)
    if not match:
        return None
    quoted = _QUOTED.search(match.group(1))
    command = next(g for g in quoted.groups() if g) if quoted else match.group(1).splitlines()[0]
    return chat.call([("run_shell", {"command": command.strip()})], f"Running `{command.strip()}`.")


def _edit_target(text: str) -> tuple[str, str | None, str | None] | None:
    """(path, old, new) for "replace `a` with `b` in path", (path, None, None) for "edit path"."""
    replace = _REPLACE.search(text)
    if replace:
        return normalise_path(replace.group(3).rstrip(".,;:!?")), replace.group(1), replace.group(2)
    edit = _EDIT.search(text)
    if edit:
        path = normalise_path(edit.group(1).strip("\"'`.,;:!?").lstrip("@"))
        if looks_like_path(path):
            return path, None, None
    return None


def _comment(path: str, text: str) -> str:
    suffix = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    if suffix in ("md", "html", "xml", "svg"):
        return f"<!-- {text} -->"
    if suffix in ("js", "ts", "tsx", "jsx", "go", "rs", "c", "h", "cpp", "java", "kt", "swift", "cs", "css"):
        return f"// {text}"
    return f"# {text}"


def _planned_edit(path: str, current: str, old: str | None, new: str | None) -> dict | None:
    """An edit_file input that changes one unique place, or None when none can be found."""
    if old is not None:
        return {"path": path, "old_text": old, "new_text": new or ""} if current.count(old) == 1 else None
    lines = [line for line in current.splitlines() if line.strip()]
    for line in reversed(lines):  # the last unique line: a mark appended after it
        if current.count(line) == 1:
            return {"path": path, "old_text": line, "new_text": f"{line}\n{_comment(path, _EDIT_MARK)}"}
    return None


def _edit_rule(text: str, chat: _Conversation) -> Reply | None:
    target = _edit_target(text)
    if target is None:
        return None
    return chat.call([("read_file", {"path": target[0]})], f"Reading `{target[0]}` before editing it.")


def _continue_edit(text: str, chat: _Conversation, fresh: list[dict]) -> Reply | None:
    """After the read an edit needed: propose the edit (the editor asks the user to approve it)."""
    target = _edit_target(text)
    if target is None or any(u.get("name") in ("edit_file", "write_file") for u in chat.uses_this_turn()):
        return None
    path, old, new = target
    uses = chat.uses_by_id
    read = next((r for r in fresh if (uses.get(r.get("tool_use_id")) or {}).get("name") == "read_file"
                 and not r.get("is_error")), None)
    if read is None:
        return None
    current = _numbered_text(result_text(read))
    edit = _planned_edit(path, current, old, new)
    if edit is None:
        wanted = f"`{old}`" if old is not None else "a unique line"
        return _summary_reply([f"I could not find {wanted} exactly once in `{path}`, so I changed nothing."],
                              chat.thinking)
    return chat.call([("edit_file", edit)], f"Editing `{path}`.")


def _numbered_text(text: str) -> str:
    """read_file's text without a leading line-number gutter, if it has one."""
    lines = text.splitlines()
    gutter = re.compile(r"^ *\d+\t")
    if lines and all(gutter.match(line) for line in lines[: min(5, len(lines))]):
        return "\n".join(gutter.sub("", line, count=1) for line in lines)
    return text


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
    path = (normalise_path(directory.group(1).rstrip("/")) if directory else "") or "."
    return chat.call([("list_files", {"path": path})], f"Listing `{path}`.")


def _describe_attachment(path: str, text: str) -> str:
    lines = text.splitlines()
    preview = "\n".join(lines[:_PREVIEW_LINES])
    more = f" It starts with:\n\n{_fence(preview, _language(path))}" if lines else " It is empty."
    return f"**{path}** (attached) has {_count(len(lines), 'line')}.{more}"


def _describe_images(images: list[ImageAttachment]) -> str:
    listed = "\n".join(f"- {item.media_type}, {item.width}x{item.height} px" for item in images)
    return (f"I received {len(images)} image{'s' if len(images) > 1 else ''}:\n\n{listed}\n\n"
            "I am the offline demo model: I read an image's size from its header, and cannot see what it shows. "
            "A real model would describe it.")


def _read_rule(text: str, chat: _Conversation) -> Reply | None:
    paths = named_paths(text)
    if not paths:
        return None
    attached = chat.attached
    read_before = {normalise_path(str((u.get("input") or {}).get("path", ""))): u
                   for u in chat.uses_by_id.values() if u.get("name") == "read_file"}
    results = _results_by_id(chat.messages)
    # Read (again) what was never read, what only a placeholder stands for now, and what changed since.
    unread = [p for p in paths if p not in attached and
              (p not in read_before or out_of_date(p, read_before[p], results, chat.messages))]
    if unread:
        names = ", ".join(f"`{p}`" for p in unread)
        return chat.call([("read_file", {"path": p}) for p in unread], f"Reading {names}.")
    sections = [_describe_attachment(p, attached[p]) if p in attached else
                f"I read `{p}` earlier in this conversation. "
                + _describe_result(read_before[p], results.get(read_before[p].get("id"), {})) for p in paths]
    return _summary_reply(sections, chat.thinking)


def _summary_rule(text: str, chat: _Conversation) -> Reply | None:
    """The core's compaction request (context/compact.py): a real, if plain, summary of the conversation —
    what the user asked and which tools ran on what — never the help text with the instruction quoted."""
    if not text.startswith(SUMMARY_PROMPT.split(":", 1)[0]):
        return None
    asked = [_typed_text(m).strip().replace("\n", " ")[:200] for m in chat.messages[:chat.prompt_index]
             if m.get("role") == "user" and _typed_text(m).strip()]
    done = []
    for use in _tool_uses(chat.messages[:chat.prompt_index]):
        args = use.get("input") or {}
        subject = args.get("path") or args.get("pattern") or args.get("command") or ""
        done.append(f"`{use.get('name', '?')}` {subject}".strip())
    lines = ["The offline demo model summarises by listing what happened; it does not judge what matters."]
    lines += ["1. Goal: the user's requests, in order:", *(f"   - {item}" for item in asked or ["(none)"])]
    lines += ["2. Tool calls:", *(f"   - {item}" for item in done or ["(none)"])]
    lines.append("3. Next step: answer the user's next request.")
    return Reply([Text("<summary>\n" + "\n".join(lines) + "\n</summary>")], stop_reason="end_turn")


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

    text = _typed_text(messages[chat.prompt_index]) if messages else ""
    fresh_results = [b for b in message_blocks(last) if b.get("type") == "tool_result"]
    # Results beside typed text are those of calls a cancel cut short, followed by the user's new prompt
    # (one user message carries both): the prompt is what to answer.
    if fresh_results and chat.prompt_index != len(messages) - 1:
        follow_up = _continue_edit(text, chat, fresh_results)
        if follow_up is not None:
            return follow_up
        uses_by_id = chat.uses_by_id
        return _summary_reply([_describe_result(uses_by_id.get(r.get("tool_use_id"), {}), r)
                               for r in fresh_results], chat.thinking)

    for rule in (_summary_rule, _run_rule, _edit_rule, _search_rule, _list_rule, _read_rule):
        reply = rule(text, chat)
        if reply is not None:
            return reply
    sections = [_describe_images(chat.images)] if chat.images else []
    sections += [_describe_attachment(p, t) for p, t in chat.attached.items()]
    if sections:
        return _summary_reply(sections, chat.thinking)
    return Reply([Text(_help_text(text))])
