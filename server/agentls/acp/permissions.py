"""Approvals as session/request_permission: allow once / allow always / reject once / reject always.

The Asker behind the session's ApprovalPolicy (agent/approval.py), which has
already applied the permission rules, the configured modes and the session's
remembered refusals: "allow always" adds the request's allow rules there (the
same rules "Always" adds in the panel and the terminal, until the session
ends), "reject always" refuses the same request for the rest of the session. The
request names the tool call the stream announced, so the client shows the
question on it. No answer is a refusal: a cancelled request (the turn was
cancelled), an error, a closed connection, or nothing within the configured
time (`approvals.timeoutSeconds`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from acp import RequestError
from pydantic import ValidationError

from ..agent.approval import ApprovalDecision, ApprovalRequest
from . import protocol
from .client_wait import client_answer
from .stream import UpdateStream

log = logging.getLogger(__name__)


class PermissionAsker:
    def __init__(self, client: Any, stream: UpdateStream, timeout: Callable[[], float]) -> None:
        self.client = client
        self.stream = stream
        self.timeout = timeout  # seconds, read when asking (settings may change)
        self._asked = 0

    async def __call__(self, request: ApprovalRequest) -> ApprovalDecision:
        tool_use_id, seen = self.stream.asking_for(request.tool_use_id)
        if tool_use_id is None:  # not inside a tool call (should not happen): a call of its own
            self._asked += 1
            tool_use_id = f"approval-{self._asked}"
        try:
            response = await client_answer(self.client.request_permission(
                session_id=self.stream.session_id, tool_call=protocol.permission_tool_call(tool_use_id, request, seen),
                options=protocol.permission_options(request)), self.timeout())
        except asyncio.TimeoutError:
            await self.stream.note(f"No answer to “{protocol.permission_title(request)}” in time: refused.")
            return ApprovalDecision(False)
        except (RequestError, ConnectionError, ValidationError) as error:
            log.warning("session/request_permission failed (%s): refused", error)
            return ApprovalDecision(False)
        return protocol.decision(response)  # approved: the policy tells the stream (UpdateStream.approved)
