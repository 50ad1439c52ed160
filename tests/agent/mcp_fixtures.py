"""MCP servers for the agent tests: the SDK-written test server over stdio or streamable HTTP."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SERVER = str(Path(__file__).resolve().parent.parent / "mcp_test_server.py")


def stdio_config(**extra) -> dict:
    return {"command": sys.executable, "args": [SERVER, "stdio"], **extra}


class HttpServer:
    """The test server as its own process on 127.0.0.1; `url` once it listens."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, SERVER, "http"], stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()  # blocks until the server printed its port (or died)
        if not line.startswith("PORT "):
            self.process.kill()
            raise RuntimeError(f"the HTTP test server did not start: {line!r}")
        self.url = f"http://127.0.0.1:{int(line.split()[1])}/mcp"

    def config(self, **extra) -> dict:
        return {"url": self.url, **extra}

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=10)
        self.process.stdout.close()
