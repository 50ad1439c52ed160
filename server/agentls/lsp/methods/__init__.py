"""Every method the language server answers, once: its name → its handler (server.py registers HANDLERS).

One module per agent/* request (a family over one store, such as sessions or
checkpoints, is one module with several handlers); the standard LSP methods
are lifecycle.py's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lsprotocol import types

from .. import lifecycle, protocol
from . import chat, checkpoints, clear, compact, context, cost, mcp_servers, models, project, sessions, tool_result

HANDLERS: dict[str, Callable[..., Any]] = {
    # the LSP lifecycle and the editor's notifications
    types.INITIALIZE: lifecycle.initialize,
    types.INITIALIZED: lifecycle.initialized,
    types.SHUTDOWN: lifecycle.shutdown,
    types.WORKSPACE_DID_CHANGE_CONFIGURATION: lifecycle.did_change_configuration,
    types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS: lifecycle.did_change_workspace_folders,
    types.TEXT_DOCUMENT_DID_OPEN: lifecycle.document_reported,
    types.TEXT_DOCUMENT_DID_CHANGE: lifecycle.document_reported,
    types.TEXT_DOCUMENT_DID_SAVE: lifecycle.document_reported,
    types.TEXT_DOCUMENT_DID_CLOSE: lifecycle.document_reported,
    # the conversation
    protocol.CHAT: chat.handle,
    protocol.COMPACT: compact.handle,
    protocol.CLEAR: clear.handle,
    protocol.TOOL_RESULT: tool_result.handle,
    # views
    protocol.COST: cost.handle,
    protocol.CONTEXT: context.handle,
    protocol.MODELS: models.handle,
    protocol.MCP_SERVERS: mcp_servers.handle,
    # sessions
    protocol.SESSIONS: sessions.list_sessions,
    protocol.NEW_SESSION: sessions.new_session,
    protocol.RESUME: sessions.resume,
    protocol.RENAME_SESSION: sessions.rename,
    protocol.DELETE_SESSION: sessions.delete,
    # checkpoints
    protocol.CHECKPOINTS: checkpoints.list_checkpoints,
    protocol.CHECKPOINT_DIFF: checkpoints.checkpoint_diff,
    protocol.REWIND: checkpoints.rewind,
    protocol.FORK: checkpoints.fork,
    # the project: tasks, commands, permissions
    protocol.TODOS: project.todos,
    protocol.MODE: project.mode,
    protocol.COMMANDS: project.commands,
    protocol.EXPAND_COMMAND: project.expand_command,
    protocol.PERMISSIONS: project.permissions,
}
