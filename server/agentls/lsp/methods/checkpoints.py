"""Checkpoints and rewind: agent/checkpoints, agent/checkpointDiff, agent/rewind, agent/fork.

Every turn of the agent is preceded by a checkpoint (its id is the turn's id);
those that changed files are listed. A rewind restores the files, cuts the
conversation back, or both (agent/conversations.py). Files changed outside the
agent since are conflicts: those the client's own dialog already agreed to
overwrite come in `overwrite`; any other is asked about here (agent/confirm
kind "rewind", else a message request) before it is overwritten. The result
carries the task list and the checkpoints as they are after it.
"""

from __future__ import annotations

from typing import Any

from .. import protocol
from ..errors import answers, invalid_params
from ..params import as_object, required_text


@answers
async def list_checkpoints(ls, params: Any) -> protocol.CheckpointsResult:
    as_object(params)
    listed = await (await ls.host.conversations()).checkpoints()
    return {"checkpoints": [protocol.checkpoint_info(c) for c in listed]}


@answers
async def checkpoint_diff(ls, params: Any) -> protocol.CheckpointDiffResult:
    checkpoint_id = required_text(as_object(params), "checkpoint")
    diffs, cannot = await (await ls.host.conversations()).preview(checkpoint_id)
    return protocol.checkpoint_diff(checkpoint_id, diffs, cannot)


def _paths(value: Any) -> list[str] | None:
    if value is None:
        return None  # an older client: every conflict is asked about here
    if not isinstance(value, list) or not all(isinstance(path, str) for path in value):
        raise invalid_params("overwrite must be an array of paths (strings)")
    return value


@answers
async def rewind(ls, params: Any) -> protocol.RewindResultWire:
    obj = as_object(params)
    checkpoint_id, restore = required_text(obj, "checkpoint"), obj.get("restore", "both")
    overwrite, host = _paths(obj.get("overwrite")), ls.host
    rewound = await (await host.conversations()).rewind(checkpoint_id, restore, host.asker, overwrite)
    if rewound.result.conversation:
        host.notify_context_usage()
    return protocol.rewind_result(rewound)


@answers
async def fork(ls, params: Any) -> protocol.ForkResult:
    checkpoint_id = required_text(as_object(params), "checkpoint")
    forked = await (await ls.host.conversations()).fork(checkpoint_id)
    ls.host.session_switched()
    return {"sessionId": forked.session_id, "transcript": protocol.transcript(forked.transcript)}
