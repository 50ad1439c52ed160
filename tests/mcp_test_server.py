"""An MCP server written with the `mcp` SDK, for the agent's MCP tests.

    python mcp_test_server.py stdio
    python mcp_test_server.py http      # prints "PORT <n>" once it listens on 127.0.0.1

Tools: echo, big (a large text), picture (an image), env_value (reads an
environment variable), crash (the process kills itself mid-call), hang
(never answers), grow/shrink (add or remove the tool `extra`).
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.utilities.types import Image

# A 1x1 PNG.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)

server = MCPServer("agentls-test")


@server.tool()
def echo(text: str) -> str:
    """Repeat the text."""
    return f"echo: {text}"


@server.tool()
def big(lines: int) -> str:
    """A long listing: `lines` numbered lines."""
    return "\n".join(f"row {n:05d} of the big result" for n in range(1, lines + 1))


@server.tool()
def picture() -> list:
    """A tiny PNG image with a caption."""
    return ["a 1x1 pixel", Image(data=PNG, format="png")]


@server.tool()
def env_value(name: str) -> str:
    """The value of an environment variable of this server."""
    return "set" if os.environ.get(name) else "unset"


@server.tool()
def crash() -> str:
    """The server dies in the middle of this call."""
    print("about to crash: goodbye", file=sys.stderr, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
    return "unreachable"


@server.tool()
async def hang() -> str:
    """Never answers."""
    await asyncio.Event().wait()
    return "unreachable"


def extra() -> str:
    """A tool that comes and goes."""
    return "extra here"


_extra_offered = [False]


@server.tool()
def grow() -> str:
    """Add the tool `extra`."""
    if not _extra_offered[0]:
        server.add_tool(extra)
        _extra_offered[0] = True
    return "added extra"


@server.tool()
def shrink() -> str:
    """Remove the tool `extra`."""
    if _extra_offered[0]:
        server.remove_tool("extra")
        _extra_offered[0] = False
    return "removed extra"


async def serve_http() -> None:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    app = server.streamable_http_app()
    config = uvicorn.Config(app, log_level="warning")
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    await uvicorn.Server(config).serve(sockets=[sock])


if __name__ == "__main__":
    if sys.argv[1:] == ["http"]:
        asyncio.run(serve_http())
    else:
        server.run("stdio")
