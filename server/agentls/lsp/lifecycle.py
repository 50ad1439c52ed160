"""The standard LSP notifications and requests agentls listens to.

initialize / initialized / shutdown drive the AgentHost; didChangeConfiguration
reconfigures the agent; didChangeWorkspaceFolders moves the roots; the
document notifications (pygls keeps the buffers itself) only tell the
EditorWorkspace that the editor's word about a document is fresh again.
"""

from __future__ import annotations

import logging

from lsprotocol import types

log = logging.getLogger(__name__)


def register(server) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls, params: types.InitializeParams) -> None:
        ls.host.initialize(params)

    @server.feature(types.INITIALIZED)
    async def initialized(ls, params: types.InitializedParams) -> None:
        await ls.host.initialized()

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls, params: None) -> None:
        await ls.host.shutdown()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls, params: types.DidChangeConfigurationParams) -> None:
        await ls.host.settings_changed(params.settings)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_workspace_folders(ls, params: types.DidChangeWorkspaceFoldersParams) -> None:
        ls.host.folders_changed()

    def document_reported(ls, params) -> None:
        if ls.host.workspace is not None:
            ls.host.workspace.forget(params.text_document.uri)

    for method in (types.TEXT_DOCUMENT_DID_OPEN, types.TEXT_DOCUMENT_DID_CHANGE,
                   types.TEXT_DOCUMENT_DID_SAVE, types.TEXT_DOCUMENT_DID_CLOSE):
        server.feature(method)(document_reported)
