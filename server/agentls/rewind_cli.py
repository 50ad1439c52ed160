"""`/checkpoints` and `/rewind` for the terminal front ends (`repl` in-process, `chat` over LSP).

Both work on the wire form of agent/checkpoints and agent/rewind (docs/protocol.md):
the REPL shapes its agent's checkpoints the same way, so one formatter serves both.
"""

from __future__ import annotations

import time
from typing import Any

from .agent.visible import visible

RESTORE = ("code", "conversation", "both")
USAGE = "/rewind N [code|conversation|both] (N from /checkpoints; default both)"


def as_wire(checkpoint) -> dict[str, Any]:
    """A Checkpoint (agent/checkpoints) as agent/checkpoints lists it."""
    return {"id": checkpoint.id, "prompt": checkpoint.prompt, "at": checkpoint.at, "kind": checkpoint.kind,
            "files": [{"path": f.path, "change": f.change} for f in checkpoint.files],
            "skipped": [{"path": s.path, "change": s.change, "reason": s.reason} for s in checkpoint.skipped],
            "rewound": checkpoint.rewound}


def checkpoint_lines(listed: list[dict[str, Any]]) -> list[str]:
    if not listed:
        return ["no checkpoints yet: a turn that changes files takes one"]
    lines = []
    for number, entry in enumerate(listed, start=1):
        stamp = time.strftime("%H:%M", time.localtime(entry["at"]))
        label = "rewind: " if entry["kind"] == "rewind" else ""
        state = "  (rewound)" if entry["rewound"] else ""
        lines.append(f"{number:>3}. {stamp}  {label}{visible(entry['prompt'])[:70]}{state}")
        for item in entry["files"]:
            lines.append(f"        {item['change']:<8} {visible(item['path'])}")
        for item in entry["skipped"]:
            lines.append(f"        {item['change']:<8} {visible(item['path'])}  (not saved: {item['reason']})")
    return lines


def parse_rewind(rest: str, listed: list[dict[str, Any]]) -> tuple[str, str] | None:
    """(checkpoint id, restore) from "N [code|conversation|both]", or None when it does not parse."""
    words = rest.split()
    if not words or len(words) > 2 or (len(words) == 2 and words[1] not in RESTORE):
        return None
    restore = words[1] if len(words) == 2 else "both"
    if words[0].isdigit() and 1 <= int(words[0]) <= len(listed):
        return listed[int(words[0]) - 1]["id"], restore
    if any(entry["id"] == words[0] for entry in listed):
        return words[0], restore
    return None


def rewind_lines(result: dict[str, Any]) -> list[str]:
    if result["cancelled"]:
        return ["rewind cancelled: nothing changed (files changed outside the agent: "
                + ", ".join(map(visible, result["conflicts"])) + ")"]
    lines = []
    if result["restored"]:
        lines.append("restored " + ", ".join(map(visible, result["restored"])))
    elif not result["conversation"]:
        lines.append("the files are already as they were at that checkpoint")
    if result["conflicts"]:
        lines.append("overwritten (changed outside the agent): " + ", ".join(map(visible, result["conflicts"])))
    for item in result["skipped"]:
        lines.append(f"not restored: {visible(item['path'])} ({item['reason']})")
    if result["conversation"]:
        lines.append("the conversation is back to before that prompt")
    if result.get("undo"):
        lines.append("to undo this rewind: /checkpoints, then /rewind on its last entry with code")
    return lines


def conflict_question(paths: list[str]) -> str:
    return ("These files changed outside the agent since the checkpoint; overwrite them? "
            + ", ".join(map(visible, paths)))
