"""Helpers of the end-to-end tests: the test editor, server command and environment, waiting."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Callable

from lsprotocol import types
from pytest_lsp.client import LanguageClient

from agentls.mock_api import MockAnthropicServer
from forkserver import agentls_command

SECRET = "sk-ant-lsp-test-DISTINCTIVE-7f3e9a"


def server_command(plain: bool = False) -> list[str]:
    """`agentls serve --stdio`, through the worker's fork server unless `plain` (tests/forkserver.py)."""
    return agentls_command("serve", "--stdio", plain=plain)


def full_capabilities() -> types.ClientCapabilities:
    return types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(
            apply_edit=True, configuration=True, workspace_folders=True,
            workspace_edit=types.WorkspaceEditClientCapabilities(
                document_changes=True, resource_operations=[types.ResourceOperationKind.Create])),
        window=types.WindowClientCapabilities(
            work_done_progress=True,
            show_message=types.ShowMessageRequestClientCapabilities(
                message_action_item=types.ClientShowMessageActionItemOptions(additional_properties_support=False))),
    )


def server_env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env["AGENTLS_DATA_DIR"] = str(data_dir)
    env.update(extra)
    return env


async def wait_until(predicate: Callable[[], Any], timeout: float = 15.0) -> Any:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("timed out waiting for a condition")
        await asyncio.sleep(0.01)


@dataclass
class Editor:
    """A test editor: the pytest-lsp client plus what the server sent it."""

    client: LanguageClient
    events: list[dict] = field(default_factory=list)
    usages: list[dict] = field(default_factory=list)
    confirms: list[dict] = field(default_factory=list)
    message_requests: list[types.ShowMessageRequestParams] = field(default_factory=list)
    edits: list[types.ApplyWorkspaceEditParams] = field(default_factory=list)
    confirm_answer: Any = field(default_factory=lambda: {"approved": True})
    message_answer: str | None = "Approve"
    edit_answer: types.ApplyWorkspaceEditResult = field(
        default_factory=lambda: types.ApplyWorkspaceEditResult(applied=True))

    async def request(self, method: str, params: Any = None, msg_id: str | None = None) -> Any:
        return await self.client.protocol.send_request_async(method, params, msg_id=msg_id)

    def kinds(self) -> list[str]:
        return [e["kind"] for e in self.events]

    def text_of(self, turn_id: str) -> str:
        return "".join(e["text"] for e in self.events if e["turnId"] == turn_id and e["kind"] == "textDelta")

    def open(self, path: Path, text: str, version: int = 1) -> str:
        uri = path.as_uri()
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="text", version=version, text=text)))
        return uri

    def change(self, uri: str, version: int, start: tuple[int, int], end: tuple[int, int], text: str) -> None:
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(types.Position(*start), types.Position(*end)), text=text)]))


# A model that does not bind thinking to its prefix (model/binding.py): the client-side layers and the
# client's own summary run on it; the default model compacts on the server and rewrites nothing.
UNBOUND_MODEL = "claude-sonnet-4-5"


def options_for(mock: MockAnthropicServer, *, confirm: bool = True, **settings: Any) -> dict:
    return {"apiKey": SECRET, "supportsConfirm": confirm, "settings": {"baseUrl": mock.base_url, **settings}}
