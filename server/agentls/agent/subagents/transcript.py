"""A subagent's full transcript as text: what it was asked, each reply, each tool call and its result.

Stored in the parent's result store under `context://<task call>/transcript` (the same store
as every other original, so read_file and the session's refs read it back); the store keeps
at most RESULT_CAP_BYTES of it (context/caps.py).
"""

from __future__ import annotations

import json
from typing import Any

from ...context.blocks import blocks_of
from ...context.store import REF_SCHEME


SUFFIX = "/transcript"


def transcript_ref(tool_use_id: str) -> str:
    return f"{REF_SCHEME}{tool_use_id}{SUFFIX}"


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", f"[{b.get('type')}]")) for b in content if isinstance(b, dict))
    return str(content)


def render(name: str, header: list[str], messages: list[dict[str, Any]]) -> str:
    """The transcript of one subagent: `header` lines, then its messages in order."""
    lines = [f"# Subagent: {name}", *header, ""]
    for message in messages:
        role = message.get("role", "")
        for block in blocks_of(message):
            kind = block.get("type")
            if kind == "text" and block.get("text"):
                lines += [f"## {role}", str(block["text"]), ""]
            elif kind == "tool_use":
                lines += [f"## tool call {block.get('id', '')}: {block.get('name', '')}",
                          json.dumps(block.get("input", {}), ensure_ascii=False), ""]
            elif kind == "tool_result":
                error = " (error)" if block.get("is_error") else ""
                lines += [f"## tool result {block.get('tool_use_id', '')}{error}",
                          _result_text(block.get("content", "")), ""]
    return "\n".join(lines)
