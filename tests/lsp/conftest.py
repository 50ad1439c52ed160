"""End-to-end fixtures: the real server process (`python -m agentls serve --stdio`),
driven by pytest-lsp's LanguageClient, talking to a MockAnthropicServer started here.

tests/lsp is a package so this conftest does not shadow tests/agent's
(`from conftest import …` there); shared helpers live in helpers.py.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp.client import LanguageClient, register_lsp_features

from agentls.lsp.transport import raw_converter

from .helpers import Editor, full_capabilities, server_command, server_env


@pytest.fixture
def data_dir(tmp_path) -> Path:
    return tmp_path / "data"


@pytest_asyncio.fixture
async def start_editor(workspace, data_dir):
    """Start a server and initialize it: `await start_editor(options, capabilities, env=...)`.

    `plain=True`: a process of its own rather than a fork of the worker's fork server (tests/forkserver.py)."""
    started: list[LanguageClient] = []

    async def start(options: dict | None = None, capabilities: types.ClientCapabilities | None = None,
                    env: dict[str, str] | None = None, folders: list[Path] | None = None,
                    plain: bool = False) -> Editor:
        client = LanguageClient(converter_factory=raw_converter)
        register_lsp_features(client)
        editor = Editor(client)
        client.feature("agent/event")(lambda ls, params: editor.events.append(params))
        client.feature("agent/contextUsage")(lambda ls, params: editor.usages.append(params))

        @client.feature("agent/confirm")
        async def confirm(ls, params):
            editor.confirms.append(params)
            answer = editor.confirm_answer
            return await answer(params) if callable(answer) else answer

        @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
        def show_message_request(ls, params: types.ShowMessageRequestParams):
            editor.message_requests.append(params)
            return types.MessageActionItem(title=editor.message_answer) if editor.message_answer else None

        @client.feature(types.WORKSPACE_APPLY_EDIT)
        def apply_edit(ls, params: types.ApplyWorkspaceEditParams):
            editor.edits.append(params)
            return editor.edit_answer

        await client.start_io(*server_command(plain), env=env or server_env(data_dir))
        started.append(client)
        roots = folders or [workspace]
        await client.initialize_session(types.InitializeParams(
            capabilities=capabilities or full_capabilities(), root_uri=roots[0].as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=r.as_uri(), name=r.name) for r in roots],
            initialization_options=options))
        return editor

    yield start
    for client in started:
        try:
            await asyncio.wait_for(client.shutdown_session(), 10)
        except Exception:  # noqa: BLE001 - a test may have killed it
            pass
        await client.stop()
