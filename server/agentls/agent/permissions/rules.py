"""Permission rules: `tool` or `tool(pattern)`, and what a rule matches.

- `run_shell(PATTERN)`: PATTERN is matched against each simple command of the
  line (permissions/shell.py), whole, with `*` standing for any text (`\\*` is
  a literal star); runs of spaces count as one, and a final ` *` also matches
  nothing (`rm *` matches `rm` alone). `run_shell(git status*)` matches
  `git status` and `git status --short`, not `git stash`.
- a file tool (`read_file`, `write_file`, `edit_file`, `list_files`,
  `grep_search`, the editor tools — any tool whose input names a `path`):
  PATTERN is matched against the workspace-relative path with .gitignore
  syntax (pathspec): `secrets/**` is everything under the root's secrets/,
  `*.lock` is a .lock file in any folder.
- MCP tools by their `mcp__<server>__<tool>` name; `*` in a tool name is a
  wildcard (`mcp__git__*`).
- a bare `tool` matches every call of it.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ..workspace import encodable

if TYPE_CHECKING:
    import pathspec  # loaded by the first path rule matched: the server answers `initialize` without it

Decision = Literal["allow", "ask", "deny"]
DECISIONS: tuple[Decision, ...] = ("deny", "ask", "allow")  # strongest first: deny wins over ask over allow
SHELL_TOOL = "run_shell"
_RULE = re.compile(r"^\s*([A-Za-z0-9_*.-]+)\s*(?:\((.*)\))?\s*$", re.S)


class RuleError(ValueError):
    pass


@dataclass(frozen=True)
class Rule:
    decision: Decision
    tool: str  # a tool name, `*` allowed
    pattern: str | None  # None: every call of the tool
    source: str  # where it was written: "settings", ".agents/settings.json", "this session"

    @property
    def text(self) -> str:
        return self.tool if self.pattern is None else f"{self.tool}({self.pattern})"

    def names(self, tool: str) -> bool:
        return tool == self.tool or ("*" in self.tool and fnmatch.fnmatchcase(tool, self.tool))

    def matches_command(self, command: str) -> bool:
        return self.pattern is None or _shell_pattern(self.pattern).fullmatch(command) is not None

    def might_match(self, head: str) -> bool:
        """Whether a command starting with `head`, then words bash works out when it runs, might match."""
        if self.pattern is None:
            return True
        fixed = _fixed_start(self.pattern)
        return fixed.startswith(head) or head.startswith(fixed)

    def matches_path(self, path: str | None) -> bool:
        if self.pattern is None:
            return True
        return path is not None and _path_spec(self.pattern).match_file(encodable(path))


def parse_rule(text: str, decision: Decision, source: str) -> Rule:
    if not isinstance(text, str):
        raise RuleError("a rule must be a string such as run_shell(npm test*)")
    found = _RULE.match(text)
    if found is None:
        raise RuleError(f"{text!r} is not a rule: write tool or tool(pattern), e.g. run_shell(npm test*)")
    tool, pattern = found.group(1), found.group(2)
    if pattern is not None:
        pattern = pattern.strip()
        if not pattern:
            raise RuleError(f"{text!r} has an empty pattern: write {tool} alone for every call")
        if tool != SHELL_TOOL and pattern.startswith("!"):
            raise RuleError(f"{text!r}: a path pattern cannot be negated")
    return Rule(decision, tool, pattern, source)


def escape_command(command: str) -> str:
    """A shell pattern matching exactly this command (what "Always" writes)."""
    return " ".join(command.split()).replace("\\", "\\\\").replace("*", "\\*")


def escape_path(path: str) -> str:
    """A .gitignore pattern matching exactly this workspace-relative path."""
    escaped = re.sub(r"([*?\[\]\\])", r"\\\1", path)
    if escaped.startswith(("!", "#")):
        escaped = "\\" + escaped
    return "/" + escaped.lstrip("/") if "/" not in escaped.strip("/") else escaped


def _fixed_start(pattern: str) -> str:
    """A shell pattern's text before its first wildcard, spaces normalised, escapes removed."""
    out, index = [], 0
    pattern = " ".join(pattern.split())
    while index < len(pattern) and pattern[index] != "*":
        if pattern[index] == "\\" and index + 1 < len(pattern):
            index += 1
        out.append(pattern[index])
        index += 1
    return "".join(out)


@functools.lru_cache(maxsize=512)
def _shell_pattern(pattern: str) -> re.Pattern[str]:
    out, index = [], 0
    pattern = " ".join(pattern.split())
    optional_tail = pattern.endswith(" *") and not pattern.endswith("\\ *")
    if optional_tail:
        pattern = pattern[:-2]
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            out.append(re.escape(pattern[index + 1]))
            index += 2
            continue
        out.append(".*" if char == "*" else re.escape(char))
        index += 1
    if optional_tail:
        out.append("(?: .*)?")
    return re.compile("".join(out), re.S)


@functools.lru_cache(maxsize=512)
def _path_spec(pattern: str) -> pathspec.GitIgnoreSpec:
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines([pattern])
