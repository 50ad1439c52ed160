"""MCP servers that misbehave on purpose, written with the `mcp` SDK's low-level server (stdio).

    python mcp_odd_server.py many N      # lists N tools
    python mcp_odd_server.py wide N      # one tool whose input schema has N properties, and `ok`
    python mcp_odd_server.py hostile     # tool names, descriptions, results and stderr with terminal escapes
    python mcp_odd_server.py crash-loud  # writes escapes to stderr and exits before answering

Every tool answers "<name> ran" (the hostile one with escapes in the text).
"""

from __future__ import annotations

import sys

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

# ESC (a CSI that clears the screen), a C1 CSI, a right-to-left override, an OSC 8 hyperlink.
HOSTILE = "\x1b[2J\x9b31m\u202eevil\x1b]8;;http://x\x07"


def tools_for(mode: str, count: int) -> list[types.Tool]:
    plain = {"type": "object", "properties": {}}
    if mode == "many":
        return [types.Tool(name=f"tool_{n:05d}", description="One of many.", input_schema=plain) for n in range(count)]
    if mode == "wide":
        wide = {"type": "object", "properties": {f"field_{n:05d}": {"type": "string", "description": f"Field {n}."}
                                                 for n in range(count)}}
        return [types.Tool(name="wide", description="A very wide schema.", input_schema=wide),
                types.Tool(name="ok", description="Fine.", input_schema=plain)]
    return [types.Tool(name=f"name{HOSTILE}", description=f"Looks {HOSTILE} harmless.", input_schema=plain)]


def main() -> None:
    mode = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    if mode in ("hostile", "crash-loud"):
        print(f"starting {HOSTILE} up", file=sys.stderr, flush=True)
    if mode == "crash-loud":
        sys.exit(3)
    tools = tools_for(mode, count)

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx, params) -> types.CallToolResult:
        text = f"{params.name} ran" + (HOSTILE if mode == "hostile" else "")
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    server = Server("agentls-odd", on_list_tools=list_tools, on_call_tool=call_tool)

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)


if __name__ == "__main__":
    main()
