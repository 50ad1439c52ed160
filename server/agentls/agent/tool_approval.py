"""One tool call's approval, as its card shows it and as the model is told.

The agent hands each tool call its own approval callback: it names the call
in the request (so a front end can ask on the call's card), keeps how the
question was decided and the diff that was shown, and, when the user refused
with a reason, gives the words the model is told along with the refusal.
"""

from __future__ import annotations

from dataclasses import replace

from .approval import ApprovalCallback, ApprovalRequest, decide


class CallApproval:
    """An ApprovalCallback for one tool call."""

    def __init__(self, approve: ApprovalCallback, tool_use_id: str, subagent: str | None = None) -> None:
        self._approve = approve
        self.tool_use_id = tool_use_id
        self.subagent = subagent  # a subagent's call: asked on its task's card (tool_use_id), naming it
        self.outcome = ""  # "" (never asked), approved, always, rejected, auto, refused
        self.reason = ""
        self.diff = ""  # the change shown for approval (edits and writes)

    async def __call__(self, request: ApprovalRequest) -> bool:
        request = replace(request, tool_use_id=self.tool_use_id, subagent=self.subagent)
        if request.diff:
            self.diff = request.diff
        decision = await decide(self._approve, request)
        self.outcome, self.reason = decision.outcome, decision.reason.strip()
        return decision.approved

    def told(self, text: str) -> str:
        """The tool's answer to the model, with the user's reason when they refused with one."""
        if self.outcome == "rejected" and self.reason:
            return f"{text}\nThe user's reason: {self.reason}"
        return text
