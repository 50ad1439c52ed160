"""agent/chat: one turn of the agent, streamed as agent/event notifications.

The request's own task runs the turn, so pygls' $/cancelRequest handling
cancels it directly (the agent keeps its history valid) and answers -32800.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...agent import events as ev
from ...context.images import ImageError, image_attachment
from .. import protocol
from ..errors import answers, invalid_params
from ..params import as_object, lsp_range, optional_text, optional_token, required_text
from ..progress import TurnProgress, progress_message

if TYPE_CHECKING:
    from ..editor_workspace import EditorWorkspace

log = logging.getLogger(__name__)

MAX_ATTACHMENTS = 100


@dataclass
class ChatParams:
    prompt: str
    work_done_token: str | int | None
    attachments: list[dict[str, Any]]


def parse(params: Any) -> ChatParams:
    obj = as_object(params)
    prompt = required_text(obj, "prompt")
    token = optional_token(obj, "workDoneToken")
    raw = obj.get("attachments")
    if raw is None:
        raw = []
    if not isinstance(raw, list):
        raise invalid_params("attachments must be an array")
    if len(raw) > MAX_ATTACHMENTS:
        raise invalid_params(f"attachments has {len(raw)} items; at most {MAX_ATTACHMENTS}")
    return ChatParams(prompt, token, [_attachment(item, f"attachments[{i}]") for i, item in enumerate(raw)])


def _attachment(item: Any, where: str) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise invalid_params(f"{where} must be an object with a uri")
    uri = item.get("uri")
    if not isinstance(uri, str) or not uri:
        raise invalid_params(f"{where}.uri must be a non-empty string")
    found: dict[str, Any] = {"uri": uri, "text": optional_text(item, "text", f"{where}.")}
    if item.get("range") is not None:
        found["range"] = lsp_range(item["range"], f"{where}.range")
    if item.get("data") is not None or item.get("mimeType") is not None:  # an image (base64 in `data`)
        if found["text"] is not None or "range" in found:
            raise invalid_params(f"{where}: an image attachment (data) has no text or range")
        found["data"] = optional_text(item, "data", f"{where}.")
        found["mimeType"] = optional_text(item, "mimeType", f"{where}.")
        if not found["data"]:
            raise invalid_params(f"{where}.data must be the image's base64")
    return found


async def resolve_attachments(workspace: EditorWorkspace, attachments: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Name file attachments by workspace path; fill a missing text from the buffer or disk; check images
    as the API checks them (an `image` key holds the core's ImageAttachment)."""
    from pygls.uris import to_fs_path

    resolved = []
    for i, item in enumerate(attachments):
        item = dict(item)
        local = to_fs_path(item["uri"]) if item["uri"].startswith("file:") else None
        if local is not None:
            try:
                path = workspace.resolve(local)
            except Exception as error:  # noqa: BLE001 - PathRefused and friends
                raise invalid_params(f"attachments[{i}].uri: {error}") from None
            item["uri"] = workspace.display(path)
            if item["text"] is None and "data" not in item:
                try:
                    item["text"] = _lines(await workspace.read_text(path), item.get("range"))
                except Exception as error:  # noqa: BLE001 - unreadable: say so in the request's answer
                    raise invalid_params(f"attachments[{i}].uri cannot be read: {error}") from None
        if "data" in item:
            try:
                item["image"] = image_attachment(item["data"], item["mimeType"], item["uri"])
            except ImageError as error:
                raise invalid_params(f"attachments[{i}]: {error}") from None
        elif item["text"] is None:
            raise invalid_params(f"attachments[{i}].text is required for a non-file uri")
        resolved.append(item)
    return resolved


def _lines(text: str, where: dict[str, Any] | None) -> str:
    if where is None:
        return text
    lines = text.splitlines(keepends=True)
    return "".join(lines[where["start"]["line"]:where["end"]["line"] + 1])


@answers
async def handle(ls, params: Any) -> protocol.ChatResult:
    request = parse(params)
    host = ls.host
    agent = await host.agent()
    await host.settle_models()  # a list being fetched decides the model (runtime.settle_models)
    with agent.exclusive("turn"):
        attachments = [protocol.attachment(item) for item in await resolve_attachments(host.workspace,
                                                                                        request.attachments)]
        turn_id = uuid.uuid4().hex[:12]
        progress = None
        if request.work_done_token is not None:
            task = asyncio.current_task()
            assert task is not None  # a coroutine handler always runs inside its request's task
            progress = TurnProgress(ls, request.work_done_token, on_cancel=task.cancel)
            progress.begin()

        def on_tool(event: ev.ToolStart) -> None:
            if progress is not None:
                progress.report(progress_message(event.tool, event.summary))

        try:
            result = await agent.run_turn(request.prompt, host.event_sink(turn_id, on_tool), attachments,
                                          turn_id=turn_id)
        except asyncio.CancelledError:
            if progress is not None:
                progress.end("Cancelled")
            raise
        except Exception:
            if progress is not None:
                progress.end("Failed")
            raise
        if progress is not None:
            progress.end("Done")
    return protocol.chat_result(turn_id, result.text, result.stop_reason, result.usage)
