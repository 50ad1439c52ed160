"""What one turn changes, tool by tool: a snapshot after the user approves a change, another after the tool.

Every tool that changes anything asks for approval first (edit_file,
write_file, run_shell, MCP tools; read-only tools never do), so the approval
callback is where the "before" snapshot is taken: after the user said yes,
before the tool runs. Whatever changed between it and the snapshot taken
when the tool returns is the tool's doing, shell side effects included;
edits the user makes while the model thinks are not attributed to the turn.
"""

from __future__ import annotations

import time
from typing import Protocol

from ..approval import ApprovalCallback, ApprovalRequest
from .model import Checkpoint, FileChange, Skipped, change_of
from .snapshot import IGNORED, FileState, Snapshot


class Owner(Protocol):
    """What a recorder needs of its session's checkpoints (manager.Checkpoints)."""

    async def snapshot(self, paths: list[str] | None = None) -> Snapshot: ...

    async def save(self, checkpoint: Checkpoint) -> None: ...


class TurnRecorder:
    def __init__(self, owner: Owner, checkpoint_id: str, prompt: str, seq: int) -> None:
        self.owner = owner
        self.checkpoint = Checkpoint(checkpoint_id, prompt, time.time(), seq)
        self._before: Snapshot | None = None
        self._paths: list[str] | None = None  # what the before snapshot holds: the named files, or all (None)
        self._changes: dict[str, list[FileState | None]] = {}  # path → [first before, last after]

    def watching(self, approve: ApprovalCallback) -> ApprovalCallback:
        """The approval callback, taking the "before" snapshot once the user approved: of the one file a
        write or an edit names, else (a shell command, an MCP tool) of the whole workspace."""
        async def approve_and_snapshot(request: ApprovalRequest) -> bool:
            approved = await approve(request)
            if approved and self._before is None:
                named = request.kind in ("write", "edit") and request.path is not None
                self._paths = [request.path] if named and request.path is not None else None
                self._before = await self.owner.snapshot(self._paths)
            return approved

        return approve_and_snapshot

    async def tool_done(self) -> None:
        """After each tool: what changed since the approval is the tool's."""
        before, self._before = self._before, None
        if before is None:
            return
        after = await self.owner.snapshot(self._paths)
        for path in before.files.keys() | after.files.keys():
            old, new = before.files.get(path), after.files.get(path)
            if old is not None and new is not None and old.same_content(new):
                continue
            if path in self._changes:
                self._changes[path][1] = new
            else:
                self._changes[path] = [old, new]

    async def finish(self) -> Checkpoint:
        """Store the checkpoint (every turn has one; those that changed nothing are not listed)."""
        await self.tool_done()
        checkpoint = self.checkpoint
        for path in sorted(self._changes):
            old, new = self._changes[path]
            if old is None and new is None or old is not None and new is not None and old.same_content(new):
                continue  # created and removed again, or changed back
            unsaved = next((s for s in (old, new) if s is not None and s.hash is None), None)
            if old is None and unsaved is not None and unsaved.skipped == IGNORED:
                continue  # an ignored file or folder made (a cache, a build): nothing of the user's was lost
            if unsaved is not None:
                checkpoint.skipped.append(Skipped(path, change_of(old, new), unsaved.skipped))
            else:
                checkpoint.files.append(FileChange(path, old.hash if old else None, new.hash if new else None,
                                                   old.mode if old else None, new.mode if new else None))
        await self.owner.save(checkpoint)
        return checkpoint
