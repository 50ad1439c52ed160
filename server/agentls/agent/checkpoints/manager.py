"""The checkpoints of one session over one workspace: take, list, diff, rewind the files.

Kept with the session data: the checkpoint rows in the session database
(agent/store/rewind.py), file contents in the shared content-addressed
store `<data folder>/checkpoints/blobs/`, the restore journal in
`<data folder>/checkpoints/journals/<workspace>/`. Nothing is ever written
into the workspace's `.git` (no git command runs at all), so it works the
same in a folder without git.
"""

from __future__ import annotations

import asyncio
import difflib
import hashlib
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..store.rewind import checkpoint_rows, save_checkpoint
from .blobs import BlobStore
from .model import Checkpoint, FileChange, FileDiff, RewindPlan, RewindResult
from .plan import UNSAVED, mark_rewound, plan
from .recorder import TurnRecorder
from .restore import Put, RestoreError, recover, restore
from .snapshot import Snapshot, Snapshotter

if TYPE_CHECKING:
    from ..store import Session
    from ..workspace import Workspace

ConfirmConflicts = Callable[[RewindPlan], Awaitable[bool]]
DIFF_CHARS = 200_000  # per file: a diff longer than this is cut (the restore itself is whole)


class CheckpointError(Exception):
    """A checkpoint request that cannot be done (unknown id, nothing saved…); plain words."""


def folder_for(session: Session) -> Path | None:
    """`checkpoints/` beside sessions.db; None for an unsaved (in-memory) session."""
    path = session.db.path
    return path.parent / "checkpoints" if path is not None else None


class Checkpoints:
    def __init__(self, workspace: Workspace, session: Session, folder: Path) -> None:
        self.workspace = workspace
        self.session = session
        self.blobs = BlobStore(folder / "blobs")
        self.data_folder = folder.parent  # sessions.db and checkpoints/: never part of a snapshot
        key = hashlib.sha256("\0".join(map(str, workspace.roots)).encode()).hexdigest()[:16]
        self.journal_folder = folder / "journals" / key
        self._roots: list[Path] = []
        self._snapshotter: Snapshotter | None = None
        self._lock = asyncio.Lock()
        self._warming: asyncio.Future | None = None

    # -- taking ----------------------------------------------------------------------------

    def recover(self) -> str | None:
        """Finish a rewind a crash interrupted (at start, before anything else reads the files)."""
        return recover(self.journal_folder)

    def _snapshotter_for_roots(self) -> Snapshotter:
        roots = list(self.workspace.roots)
        if self._snapshotter is None or roots != self._roots:
            self._roots = roots
            several = len(roots) > 1
            self._snapshotter = Snapshotter([(str(r), f"{r.name}/" if several else "") for r in roots], self.blobs,
                                            exclude=(str(self.data_folder),))
        return self._snapshotter

    def _overlay(self) -> dict[str, bytes]:
        """Open editor buffers count as they are in the editor (possibly unsaved)."""
        overlay = {}
        for path, text in self.workspace.open_documents().items():
            real = Path(path)
            if self.workspace.root_of(real) is not None:
                overlay[self.workspace.display(real)] = text.encode("utf-8")
        return overlay

    async def snapshot(self) -> Snapshot:
        snapshotter = self._snapshotter_for_roots()
        overlay = self._overlay()
        return await asyncio.to_thread(snapshotter.take, overlay)

    def begin(self, checkpoint_id: str, prompt: str) -> TurnRecorder:
        """A turn starts. The first snapshot of a session reads and stores every file (seconds on a
        large tree): it is started now, in the background, while the model thinks, so the snapshot
        taken when a tool is approved finds the cache warm."""
        if self._warming is None:
            self._warming = asyncio.ensure_future(self.snapshot())
            self._warming.add_done_callback(lambda task: task.cancelled() or task.exception())
        return TurnRecorder(self, checkpoint_id, prompt, self.session.position)

    async def save(self, checkpoint: Checkpoint) -> None:
        names = [h for f in checkpoint.files for h in (f.before, f.after) if h]
        await asyncio.to_thread(self.blobs.sync, names)  # the contents are durable before the row names them
        await asyncio.to_thread(save_checkpoint, self.session.db, self.session.id, checkpoint.id, checkpoint.seq,
                                checkpoint.at, checkpoint.body())

    # -- reading -----------------------------------------------------------------------------

    async def all(self) -> list[Checkpoint]:
        """Every checkpoint of the session, in order, `rewound` computed."""
        rows = await asyncio.to_thread(checkpoint_rows, self.session.db, self.session.id)
        checkpoints = [Checkpoint.from_row(i, seq, at, body) for i, seq, at, body in rows]
        mark_rewound(checkpoints)
        return checkpoints

    async def listed(self) -> list[Checkpoint]:
        """What agent/checkpoints shows: checkpoints that changed something, of turns still in the conversation."""
        return [c for c in await self.all() if c.changed and not c.cut]

    async def find(self, checkpoint_id: str) -> tuple[list[Checkpoint], Checkpoint]:
        checkpoints = await self.all()
        for checkpoint in checkpoints:
            if checkpoint.id == checkpoint_id:
                return checkpoints, checkpoint
        raise CheckpointError(f"no checkpoint {checkpoint_id} in this session")

    async def _undo_label(self, target: Checkpoint) -> str:
        """The name of a rewind's own checkpoint. Rewinding to a rewind's checkpoint undoes that restore:
        named after the prompt the restore went back to, never nested ("before rewinding to “before…”")."""
        if target.kind != "rewind":
            return f"before rewinding to “{target.prompt}”"
        origin, seen = target, {target.id}
        while origin.kind == "rewind" and origin.target is not None and origin.target not in seen:
            seen.add(origin.target)
            try:
                _, origin = await self.find(origin.target)
            except CheckpointError:
                break
        return f"Undo restore of “{origin.prompt}”" if origin.kind != "rewind" else origin.prompt

    async def plan(self, checkpoint_id: str) -> RewindPlan:
        checkpoints, _ = await self.find(checkpoint_id)
        now = await self.snapshot()
        return plan(checkpoints, checkpoint_id, now.files)

    async def diff(self, checkpoint_id: str) -> tuple[RewindPlan, list[FileDiff]]:
        """Per file, what a rewind to the checkpoint would change: from now to then."""
        rewind = await self.plan(checkpoint_id)
        diffs = await asyncio.to_thread(lambda: [FileDiff(f.path, f.change, self.diff_text(f.path, f.current, f.target),
                                                          f.conflict) for f in rewind.files])
        return rewind, diffs

    def _text(self, name: str | None) -> str | None:
        if name is None or name == UNSAVED:
            return None
        return self.blobs.get(name).decode("utf-8", errors="replace")

    def diff_text(self, path: str, current: str | None, target: str | None) -> str:
        if current == UNSAVED:
            return f"{path}: its content now is not text this agent saves (binary or too large); it would be replaced\n"
        old, new = self._text(current), self._text(target)
        lines = difflib.unified_diff((old or "").splitlines(keepends=True), (new or "").splitlines(keepends=True),
                                     fromfile="/dev/null" if old is None else f"a/{path}",
                                     tofile="/dev/null" if new is None else f"b/{path}")
        text = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
        return text if len(text) <= DIFF_CHARS else text[:DIFF_CHARS] + "\n… (diff cut here)\n"

    # -- rewinding the files -------------------------------------------------------------------

    async def rewind_code(self, checkpoint_id: str, confirm: ConfirmConflicts,
                          undo_prompt: str | None = None) -> RewindResult:
        """Restore every file changed at or after the checkpoint; conflicts are asked about first.

        A checkpoint of what the rewind replaces is stored before any file is touched, so the
        rewind can itself be rewound.
        """
        async with self._lock:
            rewind = await self.plan(checkpoint_id)
            target = rewind.checkpoint
            conflicts = [f.path for f in rewind.conflicts]
            if conflicts and not await confirm(rewind):
                return RewindResult(target.id, None, [], conflicts, rewind.cannot, False, cancelled=True)
            if not rewind.files:
                return RewindResult(target.id, None, [], [], rewind.cannot, False)
            puts = await asyncio.to_thread(self._puts, rewind)
            undo = Checkpoint(f"rewind-{target.id}-{len(await self.all())}",
                              undo_prompt or await self._undo_label(target),
                              time.time(), self.session.position, kind="rewind", target=target.id)
            undo.files = [FileChange(f.path, f.current, f.target) for f in rewind.files if f.current != UNSAVED]
            await self.save(undo)
            try:
                await asyncio.to_thread(restore, puts, self.journal_folder)
            except RestoreError as error:
                raise CheckpointError(str(error)) from None
            await self.workspace.files_restored({put.path: put.data for put in puts})
            return RewindResult(target.id, undo.id, [f.path for f in rewind.files], conflicts, rewind.cannot, False)

    def _puts(self, rewind: RewindPlan) -> list[Put]:
        puts = []
        for item in rewind.files:
            path = self.workspace.resolve(item.path)  # refused if it now leads out of the workspace
            puts.append(Put(path, self.blobs.get(item.target) if item.target is not None else None))
        return puts
