"""Checkpoints and rewind: every change the agent makes to the workspace can be seen and undone.

Modules: snapshot (the fast, gitignore-aware workspace walk with a stat
cache), blobs (content-addressed store), recorder (what a turn changed,
tool by tool, shell side effects included), plan (what a rewind changes,
conflicts), restore (crash-safe writes with a journal), manager (one
session's checkpoints), model (the dataclasses). The benchmark (`agentls bench
checkpoint`) is evaluation/checkpoint_bench.py.
"""

from .manager import CheckpointError, Checkpoints, folder_for
from .model import ChangedFile, Checkpoint, FileChange, FileDiff, RewindPlan, RewindResult, Skipped
from .recorder import TurnRecorder
from .snapshot import MAX_FILE_BYTES

__all__ = ["MAX_FILE_BYTES", "ChangedFile", "Checkpoint", "CheckpointError", "Checkpoints", "FileChange", "FileDiff",
           "RewindPlan", "RewindResult", "Skipped", "TurnRecorder", "folder_for"]
