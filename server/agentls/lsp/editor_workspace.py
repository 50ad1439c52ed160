"""The agent's Workspace as the editor sees it: live buffers in, workspace/applyEdit out.

Reads: an open document's text is its editor buffer (unsaved changes
included, kept current by didOpen/didChange/didClose); other files come
from disk. Writes, when the client can apply workspace edits:
- an open document gets a TextDocumentEdit pinned to the buffer's version
  (the editor refuses it if the user typed meanwhile);
- a new file gets CreateFile + an edit inserting its text;
- an existing file that is not open is written to disk (the editor reloads it).
An edit the editor applied is remembered until the editor reports the
document again, so the agent reads back what it wrote. `applied: false`
raises EditRejected: the model is told why.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any
from collections.abc import Iterable
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import from_fs_path, to_fs_path

from ..agent.workspace import EditRejected, Workspace
from .transport import client_request

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer
    from pygls.workspace import TextDocument


class EditorWorkspace(Workspace):
    def __init__(self, ls: LanguageServer, roots: Iterable[str | os.PathLike[str]]) -> None:
        super().__init__(roots)
        self._ls = ls
        # uri key (as pygls keys documents) → text we had the editor apply, not yet echoed back
        self._applied: dict[str, str] = {}

    # ---- what the editor holds -------------------------------------------

    def _documents(self) -> dict[str, TextDocument]:
        try:
            return self._ls.workspace.text_documents
        except RuntimeError:  # not initialized yet
            return {}

    def _document(self, path: Path) -> tuple[str, TextDocument] | None:
        documents = self._documents()
        key = unquote(from_fs_path(str(path)) or "")
        if key in documents:
            return key, documents[key]
        for key, document in documents.items():  # the editor may name the file through a symlink
            local = to_fs_path(key)
            if local and os.path.basename(local) == path.name and os.path.realpath(local) == str(path):
                return key, document
        return None

    def open_documents(self) -> dict[Path, str]:
        texts = {Path(local): document.source for key, document in self._documents().items()
                 if (local := to_fs_path(key))}
        texts.update({Path(local): text for key, text in self._applied.items() if (local := to_fs_path(key))})
        return texts

    def live_text(self, path: Path) -> str | None:
        found = self._document(path)
        key = found[0] if found else unquote(from_fs_path(str(path)) or "")
        if key in self._applied:
            return self._applied[key]
        return found[1].source if found else None

    def forget(self, uri: str) -> None:
        """The editor reported this document (opened, changed, saved, closed): its word wins again."""
        self._applied.pop(unquote(uri), None)

    # ---- what the client can do ----------------------------------------------

    def _edit_capabilities(self) -> tuple[bool, bool, bool]:
        """(applyEdit, documentChanges, create files)."""
        try:
            workspace = self._ls.client_capabilities.workspace
        except AttributeError:
            return False, False, False
        if workspace is None or not workspace.apply_edit:
            return False, False, False
        edit = workspace.workspace_edit
        changes = bool(edit and edit.document_changes)
        create = changes and edit is not None and types.ResourceOperationKind.Create in (edit.resource_operations or [])
        return True, changes, create

    # ---- writes ----------------------------------------------------------------

    async def apply_text_edit(self, path: Path, old_text: str, new_text: str, new_full_text: str) -> None:
        found = self._document(path)
        can_apply, _, _ = self._edit_capabilities()
        if found is None or not can_apply:
            await super().apply_text_edit(path, old_text, new_text, new_full_text)
            return
        key, document = found
        await asyncio.to_thread(self.recheck, path)  # nothing swapped in while the user was asked
        base, version = self._base(key, document)
        at = base.find(old_text)
        if at >= 0 and old_text:
            edit = self._text_edit(base, at, at + len(old_text), new_text)
        else:  # the buffer moved on since the tool read it: replace it whole (the version check guards it)
            edit = self._text_edit(base, 0, len(base), new_full_text)
        await self._apply_to_document(document.uri, version, edit, f"agentls: edit {path.name}")
        self._applied[key] = new_full_text

    async def write_text(self, path: Path, text: str) -> None:
        can_apply, _, can_create = self._edit_capabilities()
        found = self._document(path) if can_apply else None
        if found is not None:
            key, document = found
            await asyncio.to_thread(self.recheck, path)  # nothing swapped in while the user was asked
            base, version = self._base(key, document)
            await self._apply_to_document(document.uri, version, self._text_edit(base, 0, len(base), text),
                                          f"agentls: write {path.name}")
            self._applied[key] = text
            return
        if not can_create or await asyncio.to_thread(path.exists):
            await super().write_text(path, text)
            return
        await asyncio.to_thread(self.recheck, path)
        await asyncio.to_thread(path.parent.mkdir, parents=True, exist_ok=True)
        await asyncio.to_thread(self.recheck, path)
        uri = path.as_uri()
        await self._apply(types.WorkspaceEdit(document_changes=[
            types.CreateFile(uri=uri, options=types.CreateFileOptions(overwrite=False, ignore_if_exists=True)),
            types.TextDocumentEdit(text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
                                   edits=[self._text_edit("", 0, 0, text)]),
        ]), f"agentls: create {path.name}")
        self._applied[unquote(uri)] = text

    async def files_restored(self, contents: dict[Path, bytes | None]) -> None:
        """Open buffers show what a rewind put on disk: one workspace/applyEdit replacing their text.

        The files themselves were already written crash-safely; a client that cannot apply
        edits reloads them from disk itself. A buffer deleted on disk is left to the editor.
        """
        can_apply, _, _ = self._edit_capabilities()
        for path, data in contents.items():
            if data is None:
                await self._restored_deletion(path, can_apply)
                continue
            found = self._document(path) if can_apply else None
            if found is None:
                continue
            key, document = found
            text = data.decode("utf-8", errors="replace")
            base, version = self._base(key, document)
            if base == text:
                continue
            try:
                await self._apply_to_document(document.uri, version, self._text_edit(base, 0, len(base), text),
                                              f"agentls: rewind {path.name}")
            except EditRejected:
                continue  # the disk holds the restored text; the editor keeps its buffer
            self._applied[key] = text

    async def _restored_deletion(self, path: Path, can_apply: bool) -> None:
        """A file a rewind deleted: the agent stops reading our unsaved copy, and the editor is
        asked to delete it too (its buffer may hold it unsaved, e.g. a file the agent created)."""
        key = unquote(from_fs_path(str(path)) or "")
        held = self._applied.pop(key, None) is not None or self._document(path) is not None
        if not (held and can_apply and self._can_delete()):
            return
        try:
            await self._apply(types.WorkspaceEdit(document_changes=[types.DeleteFile(
                uri=path.as_uri(), options=types.DeleteFileOptions(ignore_if_not_exists=True))]),
                f"agentls: rewind {path.name}")
        except EditRejected:
            pass  # the disk is right; the editor keeps its buffer

    def _can_delete(self) -> bool:
        try:
            workspace = self._ls.client_capabilities.workspace
        except AttributeError:
            return False
        edit = workspace.workspace_edit if workspace is not None else None
        return bool(edit and edit.document_changes
                    and types.ResourceOperationKind.Delete in (edit.resource_operations or []))

    def _base(self, key: str, document: TextDocument) -> tuple[str, int | None]:
        """The text an edit applies to, and the version to pin it to.

        After an edit of ours that the editor has not echoed yet, its version is
        unknown: send none (the text we hold is what the editor holds).
        """
        if key in self._applied:
            return self._applied[key], None
        return document.source, document.version

    async def _apply_to_document(self, uri: str, version: int | None, edit: types.TextEdit, label: str) -> None:
        _, document_changes, _ = self._edit_capabilities()
        if document_changes:
            change = types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version), edits=[edit])
            await self._apply(types.WorkspaceEdit(document_changes=[change]), label)
        else:
            await self._apply(types.WorkspaceEdit(changes={uri: [edit]}), label)

    async def _apply(self, edit: types.WorkspaceEdit, label: str) -> None:
        try:
            result: Any = await client_request(self._ls.protocol, types.WORKSPACE_APPLY_EDIT,
                                               types.ApplyWorkspaceEditParams(edit=edit, label=label))
        except JsonRpcException as error:
            raise EditRejected(f"the editor failed to apply the edit: {error.message}") from None
        if not getattr(result, "applied", False):
            reason = getattr(result, "failure_reason", None)
            raise EditRejected(reason or "the editor did not apply the edit")

    def _text_edit(self, text: str, start: int, end: int, new_text: str) -> types.TextEdit:
        return types.TextEdit(range=types.Range(start=self._position(text, start), end=self._position(text, end)),
                              new_text=new_text)

    def _position(self, text: str, offset: int) -> types.Position:
        """Offset (code points) → LSP position in the negotiated encoding (UTF-16 unless agreed otherwise)."""
        line = text.count("\n", 0, offset)
        prefix = text[text.rfind("\n", 0, offset) + 1:offset]
        try:
            encoding = self._ls.workspace.position_encoding
        except RuntimeError:
            encoding = None
        if encoding == types.PositionEncodingKind.Utf8:
            units = len(prefix.encode("utf-8", "surrogatepass"))
        elif encoding == types.PositionEncodingKind.Utf32:
            units = len(prefix)
        else:
            units = len(prefix.encode("utf-16-le", "surrogatepass")) // 2
        return types.Position(line=line, character=units)
