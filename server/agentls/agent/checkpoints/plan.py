"""Which files a rewind to a checkpoint changes, and which of them someone else changed since.

Pure functions over the session's checkpoints (in the order they were
taken) and a snapshot of now. To go back to checkpoint K, every file that K
or any later checkpoint changed gets the content it had before the first
of them; a file that holds something other than what the agent (or a
rewind) last left there was changed outside the agent: a conflict.
"""

from __future__ import annotations

from .model import LINK_MARK, Checkpoint, FilePlan, RewindPlan, Skipped
from .snapshot import FileState

UNSAVED = "?"  # the file's content now could not be saved (binary, too large…)


def mark_rewound(checkpoints: list[Checkpoint]) -> None:
    """Set `rewound` on the checkpoints whose changes a later rewind (not itself undone) took back."""
    position = {c.id: i for i, c in enumerate(checkpoints)}
    undone_from: int | None = None
    for i in range(len(checkpoints) - 1, -1, -1):
        checkpoint = checkpoints[i]
        checkpoint.rewound = undone_from is not None and i >= undone_from
        if checkpoint.kind == "rewind" and not checkpoint.rewound and checkpoint.target in position:
            target = position[checkpoint.target]
            undone_from = target if undone_from is None else min(undone_from, target)


def current_hash(state: FileState | None) -> str | None:
    if state is None:
        return None
    if state.link is not None:
        return LINK_MARK + state.link
    return state.hash if state.hash is not None else UNSAVED


def plan(checkpoints: list[Checkpoint], target_id: str, now: dict[str, FileState]) -> RewindPlan:
    index = next(i for i, c in enumerate(checkpoints) if c.id == target_id)
    later = checkpoints[index:]
    first: dict[str, str | None] = {}
    first_mode: dict[str, int | None] = {}
    last: dict[str, str | None] = {}
    cannot: dict[str, Skipped] = {}
    for checkpoint in later:
        for change in checkpoint.files:
            first.setdefault(change.path, change.before)
            first_mode.setdefault(change.path, change.before_mode)
            last[change.path] = change.after
        for skipped in checkpoint.skipped:
            cannot.setdefault(skipped.path, skipped)
    files = []
    for path, target in first.items():
        current = current_hash(now.get(path))
        if current == target:
            continue
        expected = last[path]
        state = now.get(path)
        files.append(FilePlan(path, current, target, expected, conflict=current != expected,
                              current_mode=state.mode if state is not None else None, target_mode=first_mode[path]))
    files.sort(key=lambda f: f.path)
    return RewindPlan(checkpoints[index], files, sorted(cannot.values(), key=lambda s: s.path))
