"""Instruction files: the project's and the user's rules for the agent, in the system prompt.

Which files apply:
- the user's `AGENTS.md` in the config folder (agent/userconfig.py), in every workspace;
- each workspace root's `AGENTS.md`, else its `CLAUDE.md`;
- a sub-folder's `AGENTS.md` (else `CLAUDE.md`) once the agent has read, listed,
  searched, edited or run something in that folder or below it, and from then on
  for the rest of the session (the activated folders are saved with the session).

They live in the system prompt, outside the history every context layer works
on: compaction, clearing and every other layer leave them verbatim. They are
re-checked (size and modification time) before every request; a change —
a file edited, added, removed or activated — changes the system prompt, which
is one deliberate prompt-cache break, counted and announced like a tool-list
change (the agent loop does that). Where the conversation's head is fixed
(agent/turn/head.py: a model that binds thinking or takes system messages)
the system prompt stays and `changes_text` is appended to the conversation.

Each file is capped at FILE_CAP characters and all of them together at
TOTAL_CAP; a file over its share keeps its beginning and the prompt says where
it was cut and how much is missing, so neither the model nor the user is left
guessing. Only that much is ever read (bounded_read.py): a 1.5 GB file costs
4 × FILE_CAP bytes. Files that are not UTF-8 text are skipped with a note.

What counts as the project's: a regular file inside its workspace root. A
symlink whose target lies outside the root (a cloned repository's link to
`~/.ssh/config` or `/proc/self/environ`) is not read; the prompt and Show
Context name it as left out. The user's own file in the config folder may be
a link anywhere (dotfile managers link it; the user put it there). A folder
git ignores (`.gitignore` from the root down), `.git`, `node_modules` and
`.venv` are dependencies, not the project: an instruction file at or below
one never applies, however the agent touched it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..context.tokens import estimate_tokens
from .bounded_read import NotReadable, read_head
from .tools.walk import IgnoreRules
from .userconfig import file_stamp

NAMES = ("AGENTS.md", "CLAUDE.md")  # the first one found in a folder applies
FILE_CAP = 20_000  # characters of one file in the prompt (~5K tokens)
TOTAL_CAP = 60_000  # characters of all of them (~15K tokens)
HEADING = "# Instructions from the user and the project"
PREAMBLE = ("The files below were written by the user and the project's team for agents working here. Follow "
            "them: they take precedence over your general habits. A file in a sub-folder applies to work in "
            "that folder.")
CHANGED_HEADING = "# Instruction files changed"
CHANGED_PREAMBLE = ("Since the start of this conversation these instruction files changed. What follows replaces what "
                    "the system prompt or an earlier message said of the same files; follow it from now on.")
USER, ROOT, NESTED = "user", "root", "nested"
# Folders that hold dependencies even without a .gitignore saying so: never the project's instructions.
DEPENDENCY_FOLDERS = frozenset({".git", "node_modules", ".venv"})
OUTSIDE_NOTE = "a symlink to a file outside the workspace: not loaded"
NOT_TEXT_NOTE = "not UTF-8 text: left out"


@dataclass(frozen=True)
class InstructionFile:
    path: Path
    shown: str  # how the prompt and the views name it: "AGENTS.md", "src/AGENTS.md", "~user/AGENTS.md"
    scope: str  # USER, ROOT or NESTED
    text: str  # as put into the prompt (cut when over the cap)
    chars: int  # the file's full length (its size in bytes when `partial`)
    cut: bool = False
    note: str = ""  # why it is not (fully) there
    partial: bool = False  # only the file's beginning was read (it is far over the cap)
    left_out: bool = False  # refused (a link outside, not text): the note says why; Show Context warns


@dataclass
class _Known:
    stamp: tuple[int, int]
    text: str | None  # None: not readable as text
    size: int = 0
    whole: bool = True


@dataclass
class Instructions:
    """The instruction files of one session; `refresh()` before each request, `activate()` after tools."""

    config_dir: Path | None
    activated: list[Path] = field(default_factory=list)  # nested folders, in the order they were activated
    files: list[InstructionFile] = field(default_factory=list)
    section: str = ""  # what the system prompt carries ("" when no file applies)
    _known: dict[Path, _Known] = field(default_factory=dict)
    _vetted: set[Path] = field(default_factory=set)  # activated folders known to be the project's own

    # ---- which folders ---------------------------------------------------------------

    def activate(self, paths: list[Path], roots: list[Path]) -> list[Path]:
        """The agent touched these paths: the sub-folders on their way from the root with a file, newly activated."""
        new = []
        for path in paths:
            root = next((r for r in roots if path == r or r in path.parents), None)
            if root is None:
                continue
            folder = path if path.is_dir() else path.parent
            chain = [folder, *folder.parents]
            ignore = IgnoreRules(root)
            for candidate in reversed(chain[:chain.index(root)] if root in chain else []):
                if _dependency(candidate, ignore):
                    break  # it and everything below it: not the project's instructions
                if candidate in self.activated or candidate in new:
                    continue
                if _pick(candidate) is not None:
                    new.append(candidate)
        self.activated.extend(new)
        self._vetted.update(new)
        return new

    def restore(self, folders: list[str]) -> None:
        """The activated folders a resumed session had (read at the next refresh)."""
        self.activated = [Path(f) for f in folders if isinstance(f, str) and f]  # vetted at the next refresh

    def forget_folders(self) -> None:
        """A new conversation: no sub-folder applies yet (no I/O: the files already read stay known)."""
        self.activated = []
        self.files = [item for item in self.files if item.scope != NESTED]
        self.section = render(self.files)

    # ---- reading -----------------------------------------------------------------------

    def refresh(self, roots: list[Path]) -> bool:
        """Re-read what changed (stat first); True when the prompt section changed."""
        found: list[InstructionFile] = []
        seen: set[Path] = set()
        if self.config_dir is not None:
            user = _pick(self.config_dir)
            if user is not None:
                found.append(self._file(user, f"~user/{user.name}", USER, None))
                seen.add(user)
        for root in roots:
            picked = _pick(root)
            if picked is not None and picked not in seen:
                shown = picked.name if len(roots) == 1 else f"{root.name}/{picked.name}"
                found.append(self._file(picked, shown, ROOT, root))
                seen.add(picked)
        self._vet(roots)
        for folder in self.activated:
            nested = _pick(folder)
            home = next((r for r in roots if r in folder.parents), None)
            if nested is None or nested in seen or home is None:
                continue
            rel = nested.relative_to(home).as_posix()
            found.append(self._file(nested, rel if len(roots) == 1 else f"{home.name}/{rel}", NESTED, home))
            seen.add(nested)
        self._known = {path: known for path, known in self._known.items() if path in seen}
        found = _within_total(found)
        section = render(found)
        changed = section != self.section
        self.files, self.section = found, section
        return changed

    def _vet(self, roots: list[Path]) -> None:
        """Activated folders a resumed session brought along: dependency folders among them no longer apply."""
        kept = []
        for folder in self.activated:
            if folder not in self._vetted:
                root = next((r for r in roots if r in folder.parents), None)
                if root is None or _below_dependency(folder, root):
                    continue  # not dropped for good: another workspace may hold it (it stays saved)
                self._vetted.add(folder)
            kept.append(folder)
        self.activated = kept

    def _file(self, path: Path, shown: str, scope: str, home: Path | None) -> InstructionFile:
        """One picked file; `home`: the root it must stay inside (None: the user's own, anywhere)."""
        if home is not None and not _inside(path, home):
            return InstructionFile(path, shown, scope, "", 0, note=OUTSIDE_NOTE, left_out=True)
        stamp = file_stamp(path)
        known = self._known.get(path)
        if known is None or known.stamp != stamp:
            known = _read(path, stamp or (0, 0))
            self._known[path] = known
        if known.text is None:
            return InstructionFile(path, shown, scope, "", 0, note=NOT_TEXT_NOTE, left_out=True)
        if not known.whole:
            return InstructionFile(path, shown, scope, known.text, known.size, partial=True)
        return InstructionFile(path, shown, scope, known.text, len(known.text))

    def tokens(self) -> int:
        return estimate_tokens(len(self.section))  # as the agent counts the rest of the system prompt


def _pick(folder: Path) -> Path | None:
    for name in NAMES:
        candidate = folder / name
        if candidate.is_file():
            return candidate
    return None


def _inside(path: Path, root: Path) -> bool:
    """The file a picked name stands for (links followed) lies inside `root`."""
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # a link loop
        return False


def _dependency(folder: Path, ignore: IgnoreRules) -> bool:
    return folder.name in DEPENDENCY_FOLDERS or ignore.ignored(folder, True)


def _below_dependency(folder: Path, root: Path) -> bool:
    """`folder` is, or is inside, a dependency folder of `root`."""
    ignore = IgnoreRules(root)
    chain = [folder, *folder.parents]
    return any(_dependency(step, ignore) for step in reversed(chain[:chain.index(root)] if root in chain else []))


def _read(path: Path, stamp: tuple[int, int]) -> _Known:
    """The file's beginning, as much as a file can show (FILE_CAP characters), never the whole of a huge one."""
    try:
        head = read_head(path, FILE_CAP)
    except (OSError, NotReadable):
        return _Known(stamp, None)
    return _Known(stamp, head.text.replace("\r\n", "\n").strip(), head.size, head.whole)


def _capped(item: InstructionFile, cap: int) -> InstructionFile:
    """The file's beginning, up to `cap` characters (on a line end when one is near), and where it was cut."""
    if len(item.text) <= cap and not item.partial:
        return item
    if cap <= 0:
        size = f"{item.chars:,} bytes" if item.partial else f"{item.chars:,} characters"
        note = (f"[{item.shown} ({size}) is left out: the instruction files before it use all "
                f"{TOTAL_CAP:,} characters agentls includes; read the file for its rules]")
        return InstructionFile(item.path, item.shown, item.scope, note, item.chars, True, note)
    kept = item.text[:cap]
    if "\n" in kept[cap // 2:]:
        kept = kept[: kept.rfind("\n")]  # end on a whole line
    rest = "the rest is not included" if item.scope == USER else "read the file for the rest"
    size = f"{item.chars:,} bytes" if item.partial else f"{item.chars:,} characters"
    note = (f"[{item.shown} is cut here: it has {size} and only the first {len(kept):,} characters are "
            f"included (agentls includes at most {FILE_CAP:,} characters of a file and {TOTAL_CAP:,} of all "
            f"instruction files); {rest}]")
    return InstructionFile(item.path, item.shown, item.scope, f"{kept}\n\n{note}", item.chars, True, note,
                           item.partial)


def _within_total(files: list[InstructionFile]) -> list[InstructionFile]:
    """Each file within its cap and all within the total: later files give way (user, roots, then folders)."""
    left = TOTAL_CAP
    kept = []
    for item in files:
        item = _capped(item, min(FILE_CAP, left))
        left -= len(item.text) if not item.cut or left > 0 else 0
        kept.append(item)
    return kept


def _part(item: InstructionFile, how: str = "") -> str:
    where = {USER: "your instructions, every workspace", ROOT: "workspace root",
             NESTED: f"applies in {item.shown.rsplit('/', 1)[0]}/"}[item.scope]
    return f"## {item.shown} ({where}{how})\n\n{item.text or item.note}"


def render(files: list[InstructionFile]) -> str:
    """The system prompt's section: one heading per file, its text verbatim (as capped)."""
    parts = [_part(item) for item in files if item.text or item.note]
    if not parts:
        return ""
    return "\n\n".join([HEADING, PREAMBLE, *parts])


def changes_text(before: dict[str, str], files: list[InstructionFile]) -> str:
    """The instruction files that changed since the model was told `before` (shown name → text), for a
    conversation whose system prompt stays as its first request had it: each edited or added file whole,
    each removed one named ("" when nothing changed)."""
    parts = [_part(item, ", added" if item.shown not in before else ", edited: this replaces the earlier text")
             for item in files if before.get(item.shown) != item.text and (item.text or item.note)]
    now = {item.shown for item in files if item.text or item.note}
    parts += [f"## {shown} (removed)\n\nThis file no longer exists: its instructions no longer apply."
              for shown in before if shown not in now]
    if not parts:
        return ""
    return "\n\n".join([CHANGED_HEADING, CHANGED_PREAMBLE, *parts])
