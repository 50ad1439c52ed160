"""`/mcp` as text for the terminal front ends (repl in-process, chat over LSP): one format for both."""

from __future__ import annotations

from typing import Any


def mcp_lines(servers: list[dict[str, Any]], tool_list_changes: int) -> list[str]:
    if not servers:
        return ["no MCP servers configured (agentls.mcpServers, or --mcp-config FILE in the terminal)"]
    lines = []
    for server in servers:
        secrets = [*(f"env {k}=***" for k in server["envKeys"]), *(f"header {k}: ***" for k in server["headerKeys"])]
        lines.append(f"{server['name']} [{server['state']}] {server['transport']} {server['target']}"
                     + (f" ({', '.join(secrets)})" if secrets else ""))
        if server["error"]:
            lines.extend(f"  ! {row}" for row in server["error"].splitlines())
        for tool in server["tools"]:
            offered = tool["qualifiedName"] or "not offered"
            lines.append(f"  {tool['name']:<24} {tool['approval']:<6} {offered} — {tool['description']}")
    lines.append(f"tool-list changes this session (each one prompt-cache break): {tool_list_changes}")
    return lines


def tools_changed_text(added: list[str], removed: list[str]) -> str:
    changes = [*(f"+{name}" for name in added), *(f"-{name}" for name in removed)]
    return f"tools changed ({' '.join(changes) or 'definitions'}): the prompt cache is written again once"
