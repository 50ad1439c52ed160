"""The terminal's plain lines: sessions, MCP servers, checkpoints, rewinds, models and costs as text.

Pure functions from core objects to lines (no styling, no streams), used by
the Renderer (render.py) and the REPL's commands; every outside string in them
is passed through `visible()` here, and again when the Renderer writes them.
"""

from __future__ import annotations

import time

from ..agent import events as ev
from ..agent.checkpoints.model import Checkpoint, RewindResult
from ..agent.conversations import RESTORE
from ..agent.endpoint_models import ModelsView
from ..agent.mcp.status import McpServerStatus
from ..agent.store.sessions import SessionInfo
from ..agent.visible import visible
from ..model.pricing import CostReport


def k(tokens: float) -> str:
    """1.5M, 84K, 8.4K, 512: token counts the way the status bar writes them."""
    if tokens >= 1_000_000:
        return f"{tokens / 1_000_000:.2f}".rstrip("0").rstrip(".") + "M"
    if tokens >= 10_000:
        return f"{tokens / 1000:.0f}K"
    return f"{tokens / 1000:.1f}K" if tokens >= 1000 else f"{tokens:.0f}"


def instructions_changed_text(event: ev.InstructionsChanged) -> str:
    changes = [*(f"+{visible(n)}" for n in event.added), *(f"-{visible(n)}" for n in event.removed),
               *(f"~{visible(n)}" for n in event.changed)]
    return f"instructions changed ({' '.join(changes)}): the prompt cache is written again once"


def tools_changed_text(added: list[str], removed: list[str]) -> str:
    changes = [*(f"+{visible(name)}" for name in added), *(f"-{visible(name)}" for name in removed)]
    return f"tools changed ({' '.join(changes) or 'definitions'}): the prompt cache is written again once"


def _ago(seconds: float, now: float) -> str:
    if not seconds:
        return "not started"
    gap = max(0, now - seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if gap >= size:
            return f"{int(gap // size)} {unit} ago"
    return "just now"


def session_lines(sessions: list[tuple[SessionInfo, bool]], now: float) -> list[str]:
    """`/sessions`: one numbered line each (`/resume N` picks one); (info, whether it is this chat)."""
    if not sessions:
        return ["no conversations yet"]
    lines = []
    for number, (info, current) in enumerate(sessions, 1):
        mark = " (this chat)" if current else " (open in another window)" if info.in_use else ""
        title = visible(info.title or "(untitled)").replace("\n", " ")[:60]  # renamed or imported: from outside
        lines.append(f"{number:>3}. {title:<60} {_ago(info.updated, now):>12} · {info.turns} turns"
                     f" · ${info.cost_usd:.2f} · {visible(info.id)}{mark}")
    return lines


def pick_session(sessions: list[tuple[SessionInfo, bool]], choice: str) -> str | None:
    """The id a `/resume` argument names: a number from the last list, an id or a unique id prefix."""
    choice = choice.strip()
    if choice.isdigit() and 1 <= int(choice) <= len(sessions):
        return sessions[int(choice) - 1][0].id
    matches = [info.id for info, _ in sessions if info.id.startswith(choice)] if choice else []
    return matches[0] if len(matches) == 1 else None


def mcp_lines(servers: list[McpServerStatus], tool_list_changes: int) -> list[str]:
    """`/mcp`: every server with its state, secrets by name only, and its tools."""
    if not servers:
        return ["no MCP servers configured (agentls.mcpServers, or --mcp-config FILE in the terminal)"]
    lines = []
    for server in servers:
        secrets = [*(f"env {visible(key)}=***" for key in server.env_keys),
                   *(f"header {visible(key)}: ***" for key in server.header_keys)]
        lines.append(f"{visible(server.name)} [{server.state}] {server.transport} {visible(server.target)}"
                     + (f" ({', '.join(secrets)})" if secrets else ""))
        if server.error:
            lines.extend(f"  ! {row}" for row in visible(server.error).splitlines())
        for tool in server.tools:
            offered = visible(tool.qualified_name) or "not offered"
            lines.append(f"  {visible(tool.name):<24} {tool.approval:<6} {offered} — {visible(tool.description)}")
    lines.append(f"tool-list changes this session (each one prompt-cache break): {tool_list_changes}")
    return lines


def checkpoint_lines(listed: list[Checkpoint]) -> list[str]:
    """`/checkpoints`: one numbered entry each (`/rewind N` picks one), with the files it changed."""
    if not listed:
        return ["no checkpoints yet: a turn that changes files takes one"]
    lines = []
    for number, entry in enumerate(listed, start=1):
        stamp = time.strftime("%H:%M", time.localtime(entry.at))
        label = "rewind: " if entry.kind == "rewind" else ""
        state = "  (rewound)" if entry.rewound else ""
        lines.append(f"{number:>3}. {stamp}  {label}{visible(entry.prompt)[:70]}{state}")
        for item in entry.changed_files():
            lines.append(f"        {item.change:<8} {visible(item.path)}")
        for skipped in entry.skipped:
            lines.append(f"        {skipped.change:<8} {visible(skipped.path)}  (not saved: {visible(skipped.reason)})")
    return lines


def parse_rewind(rest: str, listed: list[Checkpoint]) -> tuple[str, str] | None:
    """(checkpoint id, restore) from "N [code|conversation|both]", or None when it does not parse."""
    words = rest.split()
    if not words or len(words) > 2 or (len(words) == 2 and words[1] not in RESTORE):
        return None
    restore = words[1] if len(words) == 2 else "both"
    if words[0].isdigit() and 1 <= int(words[0]) <= len(listed):
        return listed[int(words[0]) - 1].id, restore
    if any(entry.id == words[0] for entry in listed):
        return words[0], restore
    return None


def rewind_lines(result: RewindResult) -> list[str]:
    if result.cancelled:
        return ["rewind cancelled: nothing changed (files changed outside the agent: "
                + ", ".join(map(visible, result.conflicts)) + ")"]
    lines = []
    if result.restored:
        lines.append("restored " + ", ".join(map(visible, result.restored)))
    elif not result.conversation:
        lines.append("the files are already as they were at that checkpoint")
    if result.conflicts:
        lines.append("overwritten (changed outside the agent): " + ", ".join(map(visible, result.conflicts)))
    for item in result.cannot:
        lines.append(f"not restored: {visible(item.path)} ({visible(item.reason)})")
    if result.conversation:
        lines.append("the conversation is back to before that prompt")
    if result.undo:
        lines.append("to undo this rewind: /checkpoints, then /rewind on its last entry with code")
    return lines


def dollars(cost: CostReport) -> str:
    """"$0.1234", or "price unknown" for the part no price covers (tokens are still counted)."""
    if not cost.unpriced_models:
        return f"${cost.usd:.4f}"
    unknown = f"price unknown for {', '.join(map(visible, cost.unpriced_models))}"
    return f"${cost.usd:.4f} + {unknown}" if cost.usd else unknown


def model_lines(view: ModelsView) -> list[str]:
    """`/model`: whose list it is, one line per model (window, output limit, thinking, price)."""
    if view.source == "endpoint":
        lines = ["models offered by the endpoint:"]
    else:
        lines = [f"offline list ({visible(view.note) or 'the endpoint lists no models'}):"]
    for offer in view.offers:
        model, price = offer.model, offer.price
        window = f"{k(model.max_input_tokens)} window" if model.max_input_tokens else "window unknown"
        output = f" · {k(model.max_tokens)} out" if model.max_tokens else ""
        cost = f"${price.input:g}/${price.output:g} per MTok" if price is not None else "price unknown"
        mark = "*" if model.id == view.current else " "
        lines.append(f" {mark} {visible(model.id):<28} {window}{output} · thinking {model.thinking} · {cost}")
    if view.current and all(offer.model.id != view.current for offer in view.offers):
        lines.append(f" * {visible(view.current)} (answering now)")
    if view.configured and view.configured != view.current:
        lines.append(f"configured: {visible(view.configured)} (not offered: {visible(view.current)} answers)")
    lines.append("/model ID switches to another model")
    return lines
