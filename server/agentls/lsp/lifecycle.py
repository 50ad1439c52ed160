"""The standard LSP notifications and requests agentls listens to (methods/__init__.py registers them).

initialize / initialized / shutdown drive the AgentHost; didChangeConfiguration
reconfigures the agent; didChangeWorkspaceFolders moves the roots; the
document notifications (pygls keeps the buffers itself) only tell the
EditorWorkspace that the editor's word about a document is fresh again.
"""

from __future__ import annotations

from lsprotocol import types


def initialize(ls, params: types.InitializeParams) -> None:
    ls.host.initialize(params)


async def initialized(ls, params: types.InitializedParams) -> None:
    await ls.host.initialized()


async def shutdown(ls, params: None) -> None:
    await ls.host.shutdown()


async def did_change_configuration(ls, params: types.DidChangeConfigurationParams) -> None:
    await ls.host.settings_changed(params.settings)


def did_change_workspace_folders(ls, params: types.DidChangeWorkspaceFoldersParams) -> None:
    ls.host.folders_changed()


def document_reported(ls, params) -> None:
    """didOpen, didChange, didSave, didClose: the editor's word about the document is fresh again."""
    if ls.host.workspace is not None:
        ls.host.workspace.forget(params.text_document.uri)
