"""Asking the person at the editor before a command runs or a file changes.

`EditorAsker` is the Asker of the agent's ApprovalPolicy. In order:
1. `agent/confirm` when the client declared `supportsConfirm`;
2. `window/showMessageRequest` (Approve / Reject) when the client can show
   message requests (capabilities.window.showMessage);
3. otherwise a refusal: nothing runs without someone having said yes.
A client error, a malformed answer, a dismissed message and no answer
within `approvals.timeoutSeconds` (the request is then cancelled with
$/cancelRequest) also count as no.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from ..agent.approval import ApprovalDecision, ApprovalRequest
from ..agent.visible import visible
from . import protocol
from .transport import client_request

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

log = logging.getLogger(__name__)

CONFIRM = protocol.CONFIRM
APPROVE, REJECT = "Approve", "Reject"
DIFF_SHOWN = 1500  # characters of a diff put into a message box


def message_text(request: ApprovalRequest) -> str:
    text = _message_text(request)
    if request.subagent:  # which of the running subagents asks
        return text.replace("agentls", f"agentls (subagent “{visible(request.subagent)}”)", 1)
    return text


def _message_text(request: ApprovalRequest) -> str:
    if request.kind == "shell":
        return f"agentls wants to run:\n{visible(request.command or '')}"
    if request.kind == "mcp":
        return (f"agentls wants to call {visible(request.tool or '')} on MCP server '{visible(request.server or '')}'"
                f" with:\n{visible(request.input or '')}")
    if request.kind == "rules":
        return (f"agentls: the workspace file {visible(request.path or '')} sets permission rules. Its allow rules "
                f"apply only if you accept them (asked again when it changes):\n{visible(request.diff or '')}"
                "\nAccept these rules?")
    if request.kind == "rewind":
        return ("agentls: rewinding would overwrite changes made outside the agent since the checkpoint:\n"
                + "\n".join(f"  {visible(path)}" for path in request.paths or ()) + "\nOverwrite them?")
    verb = "create or overwrite" if request.kind == "write" else "edit"
    diff = request.diff or ""
    if len(diff) > DIFF_SHOWN:
        diff = diff[:DIFF_SHOWN] + f"\n… ({len(request.diff or '') - DIFF_SHOWN} more characters)"
    return f"agentls wants to {verb} {visible(request.path or '')}:\n{visible(diff)}".rstrip()


def decision(answer: Any) -> ApprovalDecision:
    """A ConfirmResult; anything else is a refusal."""
    found = protocol.confirm_decision(answer)
    if found is None:
        log.warning("agent/confirm answer is not {approved: boolean}; taken as a refusal")
        return ApprovalDecision(False)
    return found


class EditorAsker:
    def __init__(self, ls: LanguageServer, supports_confirm: Callable[[], bool],
                 timeout: Callable[[], float] = lambda: 300.0) -> None:
        self._ls = ls
        self._supports_confirm = supports_confirm
        self._timeout = timeout

    def _can_show_message_request(self) -> bool:
        try:
            window = self._ls.client_capabilities.window
        except AttributeError:
            return False
        return window is not None and window.show_message is not None

    async def _ask(self, method: str, params: Any) -> Any:
        """The client's answer; TimeoutError when it takes longer than the setting allows."""
        return await asyncio.wait_for(client_request(self._ls.protocol, method, params), self._timeout())

    async def __call__(self, request: ApprovalRequest) -> ApprovalDecision:
        """Ask with agent/confirm, or a message request showing what is asked; no answer is a no."""
        kind = request.kind
        try:
            if self._supports_confirm():
                return decision(await self._ask(CONFIRM, protocol.confirm_params(request)))
            if self._can_show_message_request():
                params = types.ShowMessageRequestParams(
                    type=types.MessageType.Warning, message=message_text(request),
                    actions=[types.MessageActionItem(title=APPROVE), types.MessageActionItem(title=REJECT)])
                item = await self._ask(types.WINDOW_SHOW_MESSAGE_REQUEST, params)
                return ApprovalDecision(getattr(item, "title", None) == APPROVE)
        except asyncio.TimeoutError:
            message = f"agentls: no answer to the approval request within {self._timeout():g} s; taken as a refusal"
            log.warning("%s", message)
            self._ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))
            return ApprovalDecision(False)
        except JsonRpcException as error:
            log.warning("asking for approval failed (%s); taken as a refusal", error.message)
            return ApprovalDecision(False)
        log.info("the client cannot be asked for approval; refused %s", kind)
        return ApprovalDecision(False)
