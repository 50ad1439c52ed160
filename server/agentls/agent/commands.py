"""Custom slash commands: Markdown files that become `/name` in the panel and the terminal.

`.agents/commands/NAME.md` in a workspace root (the team's) and `commands/NAME.md`
in the user's config folder (agent/userconfig.py) define `/NAME`. Using it sends
the file's text as the prompt, with `$ARGUMENTS` replaced by what follows the
command (`/review src/app.py` → `$ARGUMENTS` = `src/app.py`); a file without
`$ARGUMENTS` gets the arguments appended on a line of their own. A workspace
command wins over a user command of the same name; built-in commands (/compact,
/cost…) win over both. NAME is the file name without `.md`: letters, digits,
`-` and `_`.

An optional front matter of `key: value` lines between `---` lines gives the
`description` (else the first line of the text) and an `argument-hint` shown
beside the name (`/review <file>`). The file is read again at each use.

At most MAX_CHARS characters of a file are read (bounded_read.py: a 1.5 GB
file costs 400 KB, not 1.5 GB); a cut inside a character drops that
character, and bytes that are not UTF-8 show as U+FFFD, so a file is never
left out of /help for its encoding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .bounded_read import NotReadable, read_head
from .visible import excerpt

WORKSPACE_FOLDER = Path(".agents") / "commands"
USER_FOLDER = "commands"
ARGUMENTS = "$ARGUMENTS"
MAX_CHARS = 100_000  # of one command file
DESCRIPTION_CHARS = 100
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
WORKSPACE, USER = "workspace", "user"
# Built-in commands of the front ends (panel, terminal, ACP): a file cannot take these names.
RESERVED = frozenset({"compact", "cost", "clear", "new", "sessions", "resume", "context", "mcp", "help", "quit",
                      "exit", "permissions", "tasks", "todos", "model", "checkpoints", "rewind", "plan"})


@dataclass(frozen=True)
class CustomCommand:
    name: str
    description: str
    source: str  # WORKSPACE or USER
    path: Path
    argument_hint: str = ""


class CommandError(ValueError):
    pass


def custom_commands(roots: list[Path], config_dir: Path | None, reserved: frozenset[str] = RESERVED
                    ) -> list[CustomCommand]:
    """Every custom command, sorted by name (`reserved`: built-in names, which are not overridden)."""
    found: dict[str, CustomCommand] = {}
    folders = [(root / WORKSPACE_FOLDER, WORKSPACE) for root in roots]
    if config_dir is not None:
        folders.append((config_dir / USER_FOLDER, USER))
    for folder, source in folders:
        try:
            files = sorted(p for p in folder.iterdir() if p.suffix == ".md" and p.is_file())
        except OSError:
            continue
        for path in files:
            name = path.stem
            if not _NAME.match(name) or name.lower() in reserved or name in found:
                continue
            text = _read(path)
            if text is None:
                continue
            meta, body = front_matter(text)
            found[name] = CustomCommand(name, _description(meta, body), source, path, meta.get("argument-hint", ""))
    return sorted(found.values(), key=lambda c: c.name)


def expand(command: CustomCommand, arguments: str) -> str:
    """The prompt a use of the command sends (the file is read again: it may have changed)."""
    text = _read(command.path)
    if text is None:
        raise CommandError(f"/{command.name}: {command.path} can no longer be read")
    _, body = front_matter(text)
    arguments = arguments.strip()
    if ARGUMENTS in body:
        body = body.replace(ARGUMENTS, arguments)
    elif arguments:
        body = f"{body.rstrip()}\n\nArguments: {arguments}"
    if not body.strip():
        raise CommandError(f"/{command.name}: {command.path} has no text to send")
    return body.strip()


def find(commands: list[CustomCommand], name: str) -> CustomCommand | None:
    return next((c for c in commands if c.name == name), None)


def expand_named(roots: list[Path], config_dir: Path | None, name: str, arguments: str) -> str:
    """`/name arguments` → the prompt it sends; CommandError for a name no file defines."""
    command = find(custom_commands(roots, config_dir), name)
    if command is None:
        shown = f"/{name}" if _NAME.match(name) else excerpt(name)  # a name no file could have: quoted, cut
        raise CommandError(f"no custom command {shown} (files in .agents/commands/ or the user's commands folder)")
    return expand(command, arguments)


def front_matter(text: str) -> tuple[dict[str, str], str]:
    """`---` / `key: value` lines / `---` at the top, and the text after it."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            meta = {}
            for line in lines[1:end]:
                key, sep, value = line.partition(":")
                if sep:
                    meta[key.strip().lower()] = value.strip().strip("\"'")
            return meta, "\n".join(lines[end + 1:]).lstrip("\n")
    return {}, text


def _description(meta: dict[str, str], body: str) -> str:
    text = meta.get("description") or next((line.strip("# ").strip() for line in body.split("\n") if line.strip()),
                                           "")
    return text if len(text) <= DESCRIPTION_CHARS else text[:DESCRIPTION_CHARS - 1] + "…"


def _read(path: Path) -> str | None:
    try:
        return read_head(path, MAX_CHARS, errors="replace").text.replace("\r\n", "\n")[:MAX_CHARS]
    except (OSError, NotReadable):
        return None
