"""What Show Context tells of tool search (plain data, light to import: the wire's converter reads it)."""

from __future__ import annotations

from dataclasses import dataclass

NATIVE, BUILTIN, UPFRONT = "native", "builtin", "upfront"  # how the MCP tools reach the model (tool_search.py)


@dataclass(frozen=True)
class ToolSearchView:
    """Show Context: how the MCP tools reach the model (plain data)."""

    mode: str  # NATIVE, BUILTIN or UPFRONT
    offered: int  # MCP tools whose schemas every request carries
    deferred: int  # MCP tools whose schemas are left out until searched for
    loaded: int  # BUILTIN: deferred tools search_tools has loaded (counted in `offered`)
    saved_tokens: int  # the deferred schemas' tokens each request does not carry


HOW = {NATIVE: "Anthropic's tool search tool", BUILTIN: "agentls' search_tools"}


def view_text(view: ToolSearchView) -> str:
    """Show Context's line (terminal, ACP; the panel writes the same from the wire): "" when nothing is deferred."""
    if not view.deferred:
        return ""
    loaded = f", {view.loaded} loaded by search" if view.mode == BUILTIN else ""
    return (f"MCP tools: {view.offered} offered, {view.deferred} deferred to {HOW[view.mode]}{loaded}; "
            f"{view.saved_tokens:,} tokens of schemas left out of every request")
