"""What a checkpoint is: the state of the files one turn (or one rewind) changed, before and after.

Core dataclasses with snake_case fields; the LSP layer shapes the wire form.
A file's state is the hash of its content in the blob store, or None when
the file did not exist. Changes whose content could not be saved (binary,
too large, not a regular file) are in `skipped`, with the reason: a rewind
leaves those files alone and says so.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, TypeGuard

Change = Literal["added", "modified", "deleted"]
# A symbolic link's state, where a content hash would be: "symlink:" and what it points to. A turn's
# changes to links are skipped (never followed, never saved); a rewind that replaces a link keeps it in
# its undo checkpoint this way, so undoing the rewind puts the link back.
LINK_MARK = "symlink:"


def link_target(state: str | None) -> str | None:
    """What a link state points to; None when the state is a content hash (or no file)."""
    return state[len(LINK_MARK):] if state is not None and state.startswith(LINK_MARK) else None


def is_content(state: str | None) -> TypeGuard[str]:
    """A hash of saved content (not a link, not "no file")."""
    return state is not None and not state.startswith(LINK_MARK)
Kind = Literal["turn", "rewind"]


def change_of(before: object | None, after: object | None) -> Change:
    """Only whether each side exists counts (hashes, or file states)."""
    return "added" if before is None else "deleted" if after is None else "modified"


@dataclass(frozen=True)
class FileChange:
    path: str  # as the workspace displays it (root-relative, POSIX)
    before: str | None  # content hash before the turn; None: the file did not exist
    after: str | None  # what the agent left; None: it deleted the file
    before_mode: int | None = None  # permission bits before (None: not known, e.g. an older checkpoint)
    after_mode: int | None = None

    @property
    def change(self) -> Change:
        return change_of(self.before, self.after)


@dataclass(frozen=True)
class ChangedFile:
    """What a checkpoint lists of a file: its path and what the turn did to it."""

    path: str
    change: Change


@dataclass(frozen=True)
class Skipped:
    path: str
    change: Change
    reason: str  # "binary", "too large (… bytes; the limit is …)", "symlink"…


@dataclass
class Checkpoint:
    id: str
    prompt: str  # the prompt of the turn it precedes (a rewind: what it undid)
    at: float
    seq: int  # the last conversation record before the turn's prompt
    kind: Kind = "turn"
    files: list[FileChange] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    target: str | None = None  # a rewind: the checkpoint it restored
    cut: bool = False  # its turn was cut from the conversation (hidden from the list; still part of the code's history)
    rewound: bool = False  # computed: a later rewind undid its changes
    pending: bool = False  # a rewind's undo checkpoint, saved before its files are touched: real once they are

    @property
    def changed(self) -> bool:
        return bool(self.files or self.skipped)

    def changed_files(self) -> tuple[ChangedFile, ...]:
        return tuple(ChangedFile(f.path, f.change) for f in self.files)

    def body(self) -> dict[str, Any]:
        """What is stored in the row's body (JSON)."""
        body = {"prompt": self.prompt, "kind": self.kind, "target": self.target, "cut": self.cut,
                "files": [asdict(f) for f in self.files], "skipped": [asdict(s) for s in self.skipped]}
        return {**body, "pending": True} if self.pending else body

    @classmethod
    def from_row(cls, checkpoint_id: str, seq: int, at: float, body: dict[str, Any]) -> Checkpoint:
        return cls(checkpoint_id, str(body.get("prompt", "")), float(at), int(seq),
                   "rewind" if body.get("kind") == "rewind" else "turn",
                   [FileChange(f["path"], f.get("before"), f.get("after"), _mode(f.get("before_mode")),
                               _mode(f.get("after_mode"))) for f in body.get("files", [])],
                   [Skipped(s["path"], s.get("change", "modified"), s.get("reason", ""))
                    for s in body.get("skipped", [])],
                   body.get("target"), bool(body.get("cut")), pending=bool(body.get("pending")))


def _mode(value: object) -> int | None:
    return value if isinstance(value, int) and 0 <= value <= 0o7777 else None


@dataclass(frozen=True)
class FilePlan:
    """One file of a rewind: what it holds now, what it will hold, and whether someone else changed it."""

    path: str
    current: str | None  # hash now (None: missing); "?" when its content now cannot be saved
    target: str | None  # hash to restore (None: delete)
    expected: str | None  # what the agent last left there
    conflict: bool
    current_mode: int | None = None  # the permission bits now, and those to restore
    target_mode: int | None = None

    @property
    def change(self) -> Change:
        return change_of(self.current, self.target)


@dataclass
class RewindPlan:
    checkpoint: Checkpoint
    files: list[FilePlan]
    cannot: list[Skipped]  # changes after the checkpoint that cannot be undone (not saved)

    @property
    def conflicts(self) -> list[FilePlan]:
        return [f for f in self.files if f.conflict]


@dataclass(frozen=True)
class FileDiff:
    path: str
    change: Change  # what a restore does to the file as it is now
    diff: str  # unified diff from now to the checkpoint
    conflict: bool


@dataclass
class RewindResult:
    checkpoint: str  # the checkpoint restored
    undo: str | None  # the checkpoint taken before the rewind (None: no file changed)
    restored: list[str]
    conflicts: list[str]  # files changed outside the agent that were overwritten (after the user said yes)
    cannot: list[Skipped]
    conversation: bool  # the conversation was cut back
    cancelled: bool = False  # the user said no to overwriting conflicts: nothing changed
