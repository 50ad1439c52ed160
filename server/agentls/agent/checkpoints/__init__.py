"""Checkpoints and rewind: every change the agent makes to the workspace can be seen and undone.

Modules: snapshot (the fast, gitignore-aware workspace walk with a stat
cache), blobs (content-addressed store), recorder (what a turn changed,
tool by tool, shell side effects included), plan (what a rewind changes,
conflicts), restore (crash-safe writes under a per-session, locked journal),
manager (one session's checkpoints), prune (the store within its size limit),
model (the dataclasses). The benchmark (`agentls bench
checkpoint`) is evaluation/checkpoint_bench.py.

The names below are loaded on first use: the events and the LSP wire format
need only `model`, and importing the manager would import the store
(sqlite3), re2 and pathspec before the language server answers `initialize`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "CheckpointError": ".manager", "Checkpoints": ".manager", "folder_for": ".manager",
    "ChangedFile": ".model", "Checkpoint": ".model", "FileChange": ".model", "FileDiff": ".model",
    "RewindPlan": ".model", "RewindResult": ".model", "Skipped": ".model",
    "TurnRecorder": ".recorder",
    "MAX_FILE_BYTES": ".snapshot",
}

__all__ = ["MAX_FILE_BYTES", "ChangedFile", "Checkpoint", "CheckpointError", "Checkpoints", "FileChange", "FileDiff",
           "RewindPlan", "RewindResult", "Skipped", "TurnRecorder", "folder_for"]

if TYPE_CHECKING:
    from .manager import CheckpointError, Checkpoints, folder_for
    from .model import ChangedFile, Checkpoint, FileChange, FileDiff, RewindPlan, RewindResult, Skipped
    from .recorder import TurnRecorder
    from .snapshot import MAX_FILE_BYTES


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value
