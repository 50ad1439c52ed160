"""agent/toolResult: one tool call's input and its result as the model last saw it."""

from __future__ import annotations

from typing import Any

from ...agent.visible import excerpt
from .. import protocol
from ..errors import answers, invalid_params
from ..params import as_object, required_text



@answers
async def handle(ls, params: Any) -> protocol.ToolResult:
    obj = as_object(params)
    tool_use_id = required_text(obj, "toolUseId")
    with_original = obj.get("original", False)
    if not isinstance(with_original, bool):
        raise invalid_params("original: expected a boolean")
    host = ls.host
    agent = await host.agent()
    if not _ours(agent, host.session_root):  # sessions belong to their workspace: never another's originals
        raise invalid_params("toolUseId: this window's conversation belongs to another workspace")
    found = agent.tool_result(tool_use_id, with_original)
    if found is None:
        raise invalid_params(f"toolUseId: no tool call {excerpt(tool_use_id)} in this conversation")
    return protocol.tool_result(found)


def _ours(agent, root) -> bool:
    from ...agent.store import workspace_key

    return agent.session is None or root is None or agent.session.workspace == workspace_key(root)
