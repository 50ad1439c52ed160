"""The checkpoints of one session over one workspace: take, list, diff, rewind the files.

Kept with the session data: the checkpoint rows in the session database
(agent/store/rewind.py), file contents in the shared content-addressed
store `<data folder>/checkpoints/blobs/`, the restore journal in
`<data folder>/checkpoints/journals/<workspace>/<session>/` (one per session, so two windows on one
workspace never share one; restore.py locks it while it is used). Nothing is ever written
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

from ..store.rewind import checkpoint_rows, save_checkpoint, update_checkpoint
from ..visible import excerpt
from ..workspace import PathRefused
from .blobs import BlobMissing, BlobStore
from .model import (Checkpoint, FileChange, FileDiff, FilePlan, RewindPlan, RewindResult, Skipped, is_content,
                    link_target)
from .plan import UNSAVED, mark_rewound, plan
from .recorder import TurnRecorder
from .restore import JOURNAL, Put, Recovered, RestoreError, recover, restore
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
        self.journals = folder / "journals" / key  # the workspace's: one folder per session below it
        self.journal_folder = self.journals / session.id
        self._roots: list[Path] = []
        self._snapshotter: Snapshotter | None = None
        self._lock = asyncio.Lock()

    # -- taking ----------------------------------------------------------------------------

    def recover(self) -> str | None:
        """Finish a rewind a crash interrupted (at start, before anything else reads the files): this
        session's, and any other of the workspace no live process is restoring (a crashed window's, or
        one an older version left in the workspace's folder itself)."""
        folders = [self.journal_folder, self.journals]
        if self.journals.is_dir():
            folders += sorted(p for p in self.journals.iterdir() if p.is_dir() and p != self.journal_folder)
        said = []
        for folder in folders:
            if (folder / JOURNAL).exists() and (done := recover(folder)) is not None:
                self._settle_undo(done)
                said.append(done.words())
        return "; ".join(said) or None

    def _settle_undo(self, done: Recovered) -> None:
        """The undo checkpoint of an interrupted rewind: real if it was completed, gone if it was rolled back
        (a rewind that changed nothing is not shown as done, and its retry sees no outside changes)."""
        undo, session_id = done.journal.get("undo"), done.journal.get("session")
        if not isinstance(undo, dict) or not isinstance(session_id, str):
            return
        body = {**undo, "pending": False} if done.completed else None
        update_checkpoint(self.session.db, session_id, str(undo.get("id")), body)

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

    async def snapshot(self, paths: list[str] | None = None) -> Snapshot:
        """Every file (paths None), or only the named ones (display paths; those refused are left out)."""
        snapshotter = self._snapshotter_for_roots()
        overlay = self._overlay()
        if paths is None:
            return await asyncio.to_thread(snapshotter.take, overlay)
        named = {}
        for shown in paths:
            try:
                named[shown] = str(self.workspace.resolve_entry(shown))
            except PathRefused:
                continue  # a write there is refused too
        return await asyncio.to_thread(snapshotter.take_paths, named, overlay)

    def begin(self, checkpoint_id: str, prompt: str) -> TurnRecorder:
        """A turn starts. Nothing is read yet: a turn that changes nothing stores nothing, a write or an
        edit stores the one file it names, and only a shell command (or an MCP tool, which may change
        anything) has the whole workspace snapshotted, once it is approved."""
        return TurnRecorder(self, checkpoint_id, prompt, self.session.position)

    async def save(self, checkpoint: Checkpoint) -> None:
        names = [h for f in checkpoint.files for h in (f.before, f.after) if is_content(h)]
        # the contents are durable before the row names them; one pruned meanwhile cannot be restored
        missing = await asyncio.to_thread(self.blobs.sync, names)
        if missing:
            lost = [f for f in checkpoint.files if f.before in missing or f.after in missing]
            checkpoint.files = [f for f in checkpoint.files if f not in lost]
            checkpoint.skipped += [Skipped(f.path, f.change, "its content was pruned from the store while the "
                                           "turn ran (agentls sessions vacuum)") for f in lost]
        await asyncio.to_thread(save_checkpoint, self.session.db, self.session.id, checkpoint.id, checkpoint.seq,
                                checkpoint.at, checkpoint.body())

    # -- reading -----------------------------------------------------------------------------

    async def all(self) -> list[Checkpoint]:
        """Every checkpoint of the session, in order, `rewound` computed."""
        rows = await asyncio.to_thread(checkpoint_rows, self.session.db, self.session.id)
        checkpoints = [Checkpoint.from_row(i, seq, at, body) for i, seq, at, body in rows
                       if not body.get("pending")]  # a rewind under way (or interrupted): not done yet
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
        raise CheckpointError(f"no checkpoint {excerpt(checkpoint_id)} in this session")

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
        if name is None or name == UNSAVED or link_target(name) is not None:
            return None
        return self.blobs.get(name).decode("utf-8", errors="replace")

    def diff_text(self, path: str, current: str | None, target: str | None) -> str:
        if (pointed := link_target(current)) is not None:
            return (f"{path}: is now a symbolic link (to {pointed}); the rewind replaces the link itself, "
                    "never what it points to\n")
        if (pointed := link_target(target)) is not None:
            return f"{path}: becomes the symbolic link it was (to {pointed}) again\n"
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
            puts, cannot = await asyncio.to_thread(self._puts, rewind)
            cannot = sorted([*rewind.cannot, *cannot], key=lambda s: s.path)
            if not puts:
                return RewindResult(target.id, None, [], conflicts, cannot, False)
            undo = Checkpoint(f"rewind-{target.id}-{len(await self.all())}",
                              undo_prompt or await self._undo_label(target),
                              time.time(), self.session.position, kind="rewind", target=target.id, pending=True)
            undo.files = [FileChange(item.path, item.current, item.target, item.current_mode, item.target_mode)
                          for item, _ in puts
                          if item.current != UNSAVED]
            await self.save(undo)
            extra = {"session": self.session.id, "undo": {"id": undo.id, **undo.body()}}
            try:
                done = set(await asyncio.to_thread(restore, [put for _, put in puts], self.journal_folder, extra))
            except RestoreError as error:
                await asyncio.to_thread(update_checkpoint, self.session.db, self.session.id, undo.id, None)
                raise CheckpointError(str(error)) from None
            restored = [item for item, put in puts if put.path in done]
            cannot += [Skipped(item.path, item.change, "changed while the rewind ran; not restored")
                       for item, put in puts if put.path not in done]
            undo.pending = False
            undo.files = [f for f in undo.files if f.path in {item.path for item in restored}]
            await asyncio.to_thread(update_checkpoint, self.session.db, self.session.id, undo.id, undo.body())
            await self.workspace.files_restored({put.path: put.data for item, put in puts
                                                 if put.path in done and put.link is None})
            return RewindResult(target.id, undo.id, [item.path for item in restored], conflicts, cannot, False)

    def _puts(self, rewind: RewindPlan) -> tuple[list[tuple[FilePlan, Put]], list[Skipped]]:
        """What to put where: each path itself, never followed (a link there is replaced, not written
        through); a path whose folder is now a link, or whose saved content is gone, is named instead."""
        puts, cannot = [], []
        for item in rewind.files:
            try:
                path = self.workspace.resolve_entry(item.path)
                link = link_target(item.target)
                data = self.blobs.get(item.target) if is_content(item.target) else None
            except (PathRefused, BlobMissing) as error:
                reason = error.reason if isinstance(error, PathRefused) else str(error)
                cannot.append(Skipped(item.path, item.change, f"not restored: {reason}"))
                continue
            puts.append((item, Put(path, data, link, item.target_mode)))
        return puts, cannot
