"""The demo model's edits: "edit notes.md" appends a marked line, "replace `a` with `b` in notes.md" replaces;
the file is read first, then the edit proposed (the editor asks the user to approve it)."""

from __future__ import annotations

import re

from ..mock_api.script import Reply
from .answers import summary_reply
from .conversation import DemoConversation
from .memory import normalise_path, result_text
from .request import looks_like_path

_REPLACE = re.compile(r"\breplace\s+`([^`]+)`\s+with\s+`([^`]*)`\s+in\s+(\S+)", re.IGNORECASE)
_EDIT = re.compile(r"\b(?:edit|change|modify)\s+(?:the\s+file\s+)?(\S+)", re.IGNORECASE)
_EDIT_MARK = "edited by the agentls demo model"


def edit_target(text: str) -> tuple[str, str | None, str | None] | None:
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


def comment_line(path: str, text: str) -> str:
    suffix = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    if suffix in ("md", "html", "xml", "svg"):
        return f"<!-- {text} -->"
    if suffix in ("js", "ts", "tsx", "jsx", "go", "rs", "c", "h", "cpp", "java", "kt", "swift", "cs", "css"):
        return f"// {text}"
    return f"# {text}"


def planned_edit(path: str, current: str, old: str | None, new: str | None) -> dict | None:
    """An edit_file input that changes one unique place, or None when none can be found."""
    if old is not None:
        return {"path": path, "old_text": old, "new_text": new or ""} if current.count(old) == 1 else None
    lines = [line for line in current.splitlines() if line.strip()]
    for line in reversed(lines):  # the last unique line: a mark appended after it
        if current.count(line) == 1:
            return {"path": path, "old_text": line, "new_text": f"{line}\n{comment_line(path, _EDIT_MARK)}"}
    return None


def edit_rule(text: str, chat: DemoConversation) -> Reply | None:
    target = edit_target(text)
    if target is None:
        return None
    return chat.call([("read_file", {"path": target[0]})], f"Reading `{target[0]}` before editing it.")


def continue_edit(text: str, chat: DemoConversation, fresh: list[dict]) -> Reply | None:
    """After the read an edit needed: propose the edit (the editor asks the user to approve it)."""
    target = edit_target(text)
    if target is None or any(u.get("name") in ("edit_file", "write_file") for u in chat.uses_this_turn()):
        return None
    path, old, new = target
    uses = chat.uses_by_id
    read = next((r for r in fresh if (uses.get(r.get("tool_use_id")) or {}).get("name") == "read_file"
                 and not r.get("is_error")), None)
    if read is None:
        return None
    current = without_gutter(result_text(read))
    edit = planned_edit(path, current, old, new)
    if edit is None:
        wanted = f"`{old}`" if old is not None else "a unique line"
        return summary_reply([f"I could not find {wanted} exactly once in `{path}`, so I changed nothing."],
                              chat.thinking, chat.opens_turn)
    return chat.call([("edit_file", edit)], f"Editing `{path}`.")


def without_gutter(text: str) -> str:
    """read_file's text without a leading line-number gutter, if it has one."""
    lines = text.splitlines()
    gutter = re.compile(r"^ *\d+\t")
    if lines and all(gutter.match(line) for line in lines[: min(5, len(lines))]):
        return "\n".join(gutter.sub("", line, count=1) for line in lines)
    return text
