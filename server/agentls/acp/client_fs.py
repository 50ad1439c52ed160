"""The agent's Workspace through the ACP client: its buffers in (fs/read_text_file), its writes out.

When the client offers `fs.readTextFile`, a file is read through it, so the
agent sees what the user sees, unsaved edits included (like the language
server's live buffers); with `fs.writeTextFile`, edits go through the client,
which updates open buffers and records them in its history. Everything else
is the Workspace's own: every path is resolved and confined to the session's
roots before the client is asked (the tools call `resolve` first), and the
disk still answers what kind of file it is (missing, binary, too large, a
FIFO), so the rules of what is read stay exactly those of the disk path.

A client that never answers fs/read_text_file fails the read after
client_wait.client_seconds() (CLIENT_SECONDS, 30 s by default) with a tool
error naming the editor; cancelling the turn still ends the wait at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from acp import RequestError

from ..agent.workspace import EditRejected, Workspace, WorkspaceError
from .client_wait import client_answer, client_seconds


class ClientWorkspace(Workspace):
    def __init__(self, roots: Iterable[Any], client: Any, *, reads: bool, writes: bool) -> None:
        super().__init__(roots)
        self.client = client  # the SDK's connection to the client (acp.Client)
        self.reads, self.writes = reads, writes
        self.session_id: str | None = None  # known once the session is open

    async def read_text(self, path: Path) -> str:
        disk = await super().read_text(path)  # missing, binary, too large, not a regular file: refused here
        if not self.reads or self.session_id is None:
            return disk
        seconds = client_seconds()
        try:
            response = await client_answer(
                self.client.read_text_file(session_id=self.session_id, path=str(path)), seconds)
        except RequestError as error:
            raise WorkspaceError(f"the editor could not read {self.display(path)}: {error}") from None
        except asyncio.TimeoutError:
            raise WorkspaceError(f"the editor did not answer fs/read_text_file for {self.display(path)} within "
                                 f"{seconds:g} s; not read") from None
        return response.content

    async def write_text(self, path: Path, text: str) -> None:
        if not self.writes or self.session_id is None:
            await super().write_text(path, text)
            return
        await asyncio.to_thread(self.recheck, path)  # nothing swapped in while the user was asked
        if not await asyncio.to_thread(path.parent.exists):
            await asyncio.to_thread(path.parent.mkdir, parents=True, exist_ok=True)
            await asyncio.to_thread(self.recheck, path)
        try:
            await self.client.write_text_file(session_id=self.session_id, path=str(path), content=text)
        except RequestError as error:
            raise EditRejected(f"the editor did not write {self.display(path)}: {error}") from None
