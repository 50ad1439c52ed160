"""Back to a checkpoint: the files as they were ("code"), the conversation cut back to before the
checkpoint's prompt ("conversation"), or both; and where a fork at a checkpoint cuts.

The cut is stored (a restart agrees) and the conversation read again from the session.
"""

from __future__ import annotations

import asyncio

from ..checkpoints import CheckpointError, Checkpoints, RewindResult
from ..store.rewind import cut_after
from .conversation import Conversation
from .head import PromptHead
from .restore import Restorer


class Rewinder:
    def __init__(self, conversation: Conversation, head: PromptHead, restorer: Restorer) -> None:
        self.conversation = conversation
        self.head = head
        self.restorer = restorer

    def checkpoints(self) -> Checkpoints:
        if self.conversation.checkpoints is None:
            raise CheckpointError("this conversation is not saved (see the session problems), so it has no checkpoints")
        return self.conversation.checkpoints

    async def rewind(self, checkpoint_id: str, restore: str, confirm) -> RewindResult:
        """`confirm(plan)` is asked when files changed outside the agent."""
        checkpoints = self.checkpoints()
        _, target = await checkpoints.find(checkpoint_id)
        if restore != "code" and target.kind != "turn":
            raise CheckpointError("this checkpoint was taken before a rewind: it restores files only "
                                  "(restore: code)")
        if restore in ("code", "both"):
            result = await checkpoints.rewind_code(checkpoint_id, confirm)
            if result.cancelled:
                return result
        else:
            result = RewindResult(checkpoint_id, None, [], [], [], False)
        if restore in ("conversation", "both"):
            await self._cut_conversation(target.seq)
            result.conversation = True
        return result

    async def _cut_conversation(self, seq: int) -> None:
        """The conversation as it was before the prompt at record seq+1; stored, so a restart agrees."""
        session = self.conversation.session
        assert session is not None
        await asyncio.to_thread(session.flush)
        await asyncio.to_thread(cut_after, session.db, session.id, seq)
        self.conversation.start(self.head.new_engine())
        self.restorer.restore(session)  # a deliberate rewrite: the next request is a prefix of earlier ones

    async def fork_point(self, checkpoint_id: str) -> tuple[int, float]:
        """(record seq, time) where a fork at this checkpoint cuts the conversation."""
        _, target = await self.checkpoints().find(checkpoint_id)
        if target.kind != "turn":
            raise CheckpointError("a fork starts before a prompt; this checkpoint was taken before a rewind")
        return target.seq, target.at
