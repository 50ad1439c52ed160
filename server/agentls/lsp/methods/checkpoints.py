"""Checkpoints and rewind: agent/checkpoints, agent/checkpointDiff, agent/rewind, agent/fork.

Every turn of the agent is preceded by a checkpoint (its id is the turn's id);
those that changed files are listed. A rewind restores the files, cuts the
conversation back, or both; files changed outside the agent since are
conflicts, and the user is asked (agent/confirm kind "rewind", else a message
request) before they are overwritten.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ...agent.approval import ApprovalRequest
from .. import protocol
from ..errors import answers, invalid_params
from ..params import as_object, required_text

LIST, DIFF, REWIND, FORK = protocol.CHECKPOINTS, protocol.CHECKPOINT_DIFF, protocol.REWIND, protocol.FORK
RESTORE = ("code", "conversation", "both")
CONFLICT_DIFF_CHARS = 4000  # of the conflicting files' diff, put into the question


@answers
async def list_checkpoints(ls, params: Any) -> protocol.CheckpointsResult:
    as_object(params)
    agent = await ls.host.agent()
    if agent.checkpoints is None:
        return {"checkpoints": []}
    return {"checkpoints": [protocol.checkpoint_info(c) for c in await agent.checkpoints.listed()]}


@answers
async def checkpoint_diff(ls, params: Any) -> protocol.CheckpointDiffResult:
    checkpoint_id = required_text(as_object(params), "checkpoint")
    agent = await ls.host.agent()
    from ...agent.checkpoints import CheckpointError

    try:
        plan, diffs = await agent.require_checkpoints().diff(checkpoint_id)
    except CheckpointError as error:
        raise invalid_params(str(error)) from None
    return protocol.checkpoint_diff(checkpoint_id, diffs, plan.cannot)


def _confirmer(ls, agent, checkpoint_id: str):
    """Ask before files changed outside the agent are overwritten; no way to ask is a no."""
    async def confirm(plan) -> bool:
        asker = ls.host.asker
        if asker is None:
            return False
        manager = agent.require_checkpoints()
        diff = "".join(await asyncio.to_thread(lambda: [manager.diff_text(f.path, f.current, f.target)
                                                        for f in plan.conflicts]))
        if len(diff) > CONFLICT_DIFF_CHARS:
            diff = diff[:CONFLICT_DIFF_CHARS] + f"\n… ({len(diff) - CONFLICT_DIFF_CHARS} more characters)\n"
        request = ApprovalRequest("rewind", diff=diff, checkpoint=checkpoint_id,
                                  paths=tuple(f.path for f in plan.conflicts))
        return (await asker(request)).approved

    return confirm


@answers
async def rewind(ls, params: Any) -> protocol.RewindResultWire:
    obj = as_object(params)
    checkpoint_id = required_text(obj, "checkpoint")
    restore = obj.get("restore", "both")
    if restore not in RESTORE:
        raise invalid_params(f"restore must be one of {', '.join(RESTORE)}")
    host = ls.host
    agent = await host.agent()
    from ...agent.checkpoints import CheckpointError

    try:
        result = await agent.rewind(checkpoint_id, restore, _confirmer(ls, agent, checkpoint_id))
    except CheckpointError as error:
        raise invalid_params(str(error)) from None
    if not result.conversation:
        return protocol.rewind_result(result)
    host.notify_context_usage()
    return protocol.rewind_result(result, await agent.transcript())


@answers
async def fork(ls, params: Any) -> protocol.ForkResult:
    checkpoint_id = required_text(as_object(params), "checkpoint")
    host = ls.host
    agent = await host.agent()
    from ...agent.checkpoints import CheckpointError
    from ...agent.store import open_session, workspace_key
    from ...agent.store.rewind import fork_at
    from ...agent.store.session import new_session_id

    with agent.exclusive("fork"):
        try:
            seq, at = await agent.fork_point(checkpoint_id)
        except CheckpointError as error:
            raise invalid_params(str(error)) from None
        old = agent.session
        await asyncio.to_thread(old.flush)
        new_id = new_session_id()
        await asyncio.to_thread(fork_at, old.db, old.id, seq, at, new_id, workspace_key(host.session_root))
        session = await asyncio.to_thread(open_session, host.session_root, session_id=new_id)
        agent.resume(session)
        host.show_session_problems()
        if host.policy is not None:
            host.policy.forget()
    host.notify_context_usage()
    return {"sessionId": session.id, "transcript": protocol.transcript(await agent.transcript())}


HANDLERS = {LIST: list_checkpoints, DIFF: checkpoint_diff, REWIND: rewind, FORK: fork}
