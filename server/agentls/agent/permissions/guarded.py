"""Rules and instructions files: what the agent may never change without a person saying yes.

The agent must not grant itself permissions or rewrite its own instructions: a
write to one of these files (write_file, edit_file, a shell line that writes
into one or names one to a program that may write) is asked whatever the mode
and whatever an allow rule says — "always" and "Always" answers included.

- in a workspace root: `.agents/` (the rules file `.agents/settings.json`, custom
  commands), `AGENTS.md` and `CLAUDE.md` in any folder (instructions), `.claude/`,
  `.vscode/settings.json` and `*.code-workspace` (VS Code reads `agentls.*`
  settings, permissions included, from them);
- the user's config folder (agent/userconfig.py: settings.json, AGENTS.md, commands).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from ..userconfig import config_dir

if TYPE_CHECKING:
    import pathspec

PATTERNS = (".agents/", "AGENTS.md", "CLAUDE.md", ".claude/", ".vscode/settings.json", "*.code-workspace")
# Words that name such a file inside a command (compared in lower case: some file systems ignore case).
NAMES = (".agents", "agents.md", "claude.md", ".claude", ".vscode", ".code-workspace")
# Programs that only read the files they are given (a line naming a rules file to them is not a write).
READERS = frozenset({"cat", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "ls", "wc", "diff",
                     "stat", "file", "jq", "nl", "od", "xxd", "hexdump", "md5sum", "sha1sum", "sha256sum", "echo",
                     "printf", "true"})
WHY = "it changes a rules or instructions file (the agent may not change them without asking)"


@functools.lru_cache(maxsize=1)
def _spec() -> pathspec.GitIgnoreSpec:
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines([pattern.lower() for pattern in PATTERNS])


def is_guarded(relative: str | None) -> bool:
    """A workspace-relative path (None: outside the workspace, never matched here), in any case."""
    return relative is not None and _spec().match_file(relative.lower())


def names_one(text: str) -> bool:
    """Whether a command's words (or a path as written) name a rules or instructions file."""
    lowered = text.lower()
    return any(name in lowered for name in NAMES) or str(config_dir()).lower() in lowered
