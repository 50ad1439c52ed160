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

from ..errors import answers, invalid_params
from ..params import as_object, required_text

LIST, DIFF, REWIND, FORK = "agent/checkpoints", "agent/checkpointDiff", "agent/rewind", "agent/fork"
RESTORE = ("code", "conversation", "both")
CONFLICT_DIFF_CHARS = 4000  # of the conflicting files' diff, put into the question


def _wire(checkpoint) -> dict[str, Any]:
    return {"id": checkpoint.id, "prompt": checkpoint.prompt, "at": checkpoint.at, "kind": checkpoint.kind,
            "files": [{"path": f.path, "change": f.change} for f in checkpoint.files],
            "skipped": [_skipped(s) for s in checkpoint.skipped], "rewound": checkpoint.rewound}


def _skipped(item) -> dict[str, str]:
    return {"path": item.path, "change": item.change, "reason": item.reason}


async def transcript_of(agent) -> list[dict[str, Any]]:
    """The conversation as the panel shows it, each user message with its checkpoint id."""
    from ...agent.transcript import transcript, with_checkpoints

    entries = transcript(agent.history())
    if agent.checkpoints is None:
        return entries
    turns = [(c.id, c.prompt) for c in await agent.checkpoints.all() if c.kind == "turn" and not c.cut]
    return with_checkpoints(entries, turns)


def _checkpoint_error(error: Exception):
    return invalid_params(str(error))


@answers
async def list_checkpoints(ls, params: Any) -> dict[str, Any]:
    as_object(params)
    agent = await ls.host.agent()
    if agent.checkpoints is None:
        return {"checkpoints": []}
    return {"checkpoints": [_wire(c) for c in await agent.checkpoints.listed()]}


@answers
async def checkpoint_diff(ls, params: Any) -> dict[str, Any]:
    checkpoint_id = required_text(as_object(params), "checkpoint")
    agent = await ls.host.agent()
    from ...agent.checkpoints import CheckpointError

    try:
        plan, diffs = await agent.require_checkpoints().diff(checkpoint_id)
    except CheckpointError as error:
        raise _checkpoint_error(error) from None
    return {"checkpoint": checkpoint_id,
            "files": [{"path": d.path, "change": d.change, "diff": d.diff, "conflict": d.conflict} for d in diffs],
            "skipped": [_skipped(s) for s in plan.cannot]}


def _confirmer(ls, checkpoint_id: str):
    """Ask before files changed outside the agent are overwritten; no way to ask is a no."""
    async def confirm(plan) -> bool:
        asker = ls.host.asker
        if asker is None:
            return False
        paths = [f.path for f in plan.conflicts]
        manager = ls.host._agent.checkpoints
        diff = "".join(await asyncio.to_thread(lambda: [manager.diff_text(f.path, f.current, f.target)
                                                        for f in plan.conflicts]))
        if len(diff) > CONFLICT_DIFF_CHARS:
            diff = diff[:CONFLICT_DIFF_CHARS] + f"\n… ({len(diff) - CONFLICT_DIFF_CHARS} more characters)\n"
        message = ("agentls: rewinding would overwrite changes made outside the agent since the checkpoint:\n"
                   + "\n".join(f"  {p}" for p in paths) + "\nOverwrite them?")
        answer = await asker.ask({"kind": "rewind", "checkpoint": checkpoint_id, "paths": paths, "diff": diff},
                                 message, "rewind")
        return answer.approved

    return confirm


@answers
async def rewind(ls, params: Any) -> dict[str, Any]:
    obj = as_object(params)
    checkpoint_id = required_text(obj, "checkpoint")
    restore = obj.get("restore", "both")
    if restore not in RESTORE:
        raise invalid_params(f"restore must be one of {', '.join(RESTORE)}")
    host = ls.host
    agent = await host.agent()
    from ...agent.checkpoints import CheckpointError

    with host.exclusive("rewind"):
        try:
            result = await agent.rewind(checkpoint_id, restore, _confirmer(ls, checkpoint_id))
        except CheckpointError as error:
            raise _checkpoint_error(error) from None
    if result.conversation:
        host.notify_context_usage()
    answer = {"checkpoint": result.checkpoint, "undo": result.undo, "restored": result.restored,
              "conflicts": result.conflicts, "skipped": [_skipped(s) for s in result.cannot],
              "conversation": result.conversation, "cancelled": result.cancelled}
    if result.conversation:
        answer["transcript"] = await transcript_of(agent)
    return answer


@answers
async def fork(ls, params: Any) -> dict[str, Any]:
    checkpoint_id = required_text(as_object(params), "checkpoint")
    host = ls.host
    agent = await host.agent()
    from ...agent.checkpoints import CheckpointError
    from ...agent.store import open_session, workspace_key
    from ...agent.store.rewind import fork_at
    from ...agent.store.session import new_session_id

    with host.exclusive("fork"):
        try:
            seq, at = await agent.fork_point(checkpoint_id)
        except CheckpointError as error:
            raise _checkpoint_error(error) from None
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
    return {"sessionId": session.id, "transcript": await transcript_of(agent)}


HANDLERS = {LIST: list_checkpoints, DIFF: checkpoint_diff, REWIND: rewind, FORK: fork}
