"""Issue 34, item 3 over LSP (pytest-lsp, the real server process): an MCP server with 300 tools has its schemas
deferred; a tool is found with Anthropic's tool search tool and called, or, with `toolSearch: "builtin"` (an
endpoint without the server tool), with agentls' search_tools, its schema appended; agent/context shows the tools
offered vs deferred and the tokens saved."""

from __future__ import annotations

import sys
from pathlib import Path

from agentls.mock_api import Reply, Text, ToolSearch, ToolUse
from .helpers import options_for

ODD = str(Path(__file__).resolve().parent.parent / "mcp_odd_server.py")
TARGET = "mcp__many__tool_00042"
SERVERS = {"many": {"command": sys.executable, "args": [ODD, "many", "300"], "approval": "always"}}


async def test_300_tools_deferred_found_with_the_tool_search_tool_and_called(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api, mcpServers=SERVERS))
    mock_api.script(Reply([ToolSearch("tool 00042"), ToolUse(TARGET, {})]), Reply([Text("called")]))
    assert (await editor.request("agent/chat", {"prompt": "run tool 42"}))["text"] == "called"
    first, second = mock_api.message_bodies[-2:]
    assert sum(1 for t in first["tools"] if t.get("defer_loading")) == 300
    assert second["messages"][-1]["content"][0]["content"] == "tool_00042 ran"
    assert [e["tool"] for e in editor.events if e["kind"] == "toolEnd"] == [TARGET]

    context = await editor.request("agent/context")
    search = context["toolSearch"]
    assert (search["mode"], search["offered"], search["deferred"], search["loaded"]) == ("native", 0, 300, 0)
    assert search["savedTokens"] > 5_000 and context["warnings"] == []


async def test_builtin_search_tools_loads_the_schema_by_appending_and_the_tool_is_called(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api, mcpServers=SERVERS, toolSearch="builtin"))
    mock_api.script(Reply([ToolUse("search_tools", {"query": "tool_00042", "limit": 1})]),
                    Reply([ToolUse(TARGET, {})]), Reply([Text("called")]))
    assert (await editor.request("agent/chat", {"prompt": "run tool 42"}))["text"] == "called"
    bodies = mock_api.message_bodies[-3:]
    assert not [t for t in bodies[0]["tools"] if t["name"].startswith("mcp__")]
    [added] = [b["tool"]["definition"]["name"] for m in bodies[1]["messages"] if m["role"] == "system"
               for b in m["content"] if b["type"] == "tool_addition"]
    assert added == TARGET and bodies[2]["messages"][-1]["content"][0]["content"] == "tool_00042 ran"
    assert bodies[1]["tools"] == bodies[0]["tools"] and bodies[2]["tools"] == bodies[0]["tools"]

    search = (await editor.request("agent/context"))["toolSearch"]
    assert (search["mode"], search["offered"], search["deferred"], search["loaded"]) == ("builtin", 1, 299, 1)
