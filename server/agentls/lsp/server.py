"""The agentls language server: pygls 2 over stdio with the agent/* methods.

    agentls                  # what an editor launches
    agentls serve --stdio
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
from typing import Any, BinaryIO

from lsprotocol import types
from pygls.exceptions import FeatureRequestError
from pygls.lsp.server import LanguageServer

from .. import __version__, credentials
from .methods import HANDLERS
from .errors import EXPECTED_CODES
from .host import AgentHost
from ..agent.secrets import SECRETS, learn_environment_secrets
from .redact import setup_logging
from .transport import open_stdio, raw_converter, serve_messages

log = logging.getLogger(__name__)


class AgentServer(LanguageServer):
    def __init__(self, warming: asyncio.Future[Any] | None = None) -> None:
        super().__init__("agentls", __version__, converter_factory=raw_converter)
        self.host = AgentHost(self, warming)

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Errors outside any request (a failing notification handler): log and show, scrubbed."""
        if source is FeatureRequestError:
            return
        message = SECRETS.scrub(f"agentls: {type(error).__name__}: {error}")
        log.error("%s", message)
        self.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=message))


def build_server(warming: asyncio.Future[Any] | None = None) -> AgentServer:
    server = AgentServer(warming)
    for method, handler in HANDLERS.items():
        server.feature(method)(handler)
    return server


async def serve(stdin: BinaryIO, stdout: BinaryIO) -> None:
    server = build_server()  # the agent's modules load once initialize is answered (host.py)
    reader, writer = await open_stdio(stdin, stdout)
    server.protocol.set_writer(writer)
    try:
        await serve_messages(reader, server.protocol)
    finally:
        await server.host.shutdown()
        _exit_soon()


def _exit_soon(grace: float = 5.0) -> None:
    """The client is gone: end the process even if a worker thread is stuck in a system call
    (asyncio.run would wait for the default executor's threads forever)."""
    timer = threading.Timer(grace, os._exit, args=(0,))
    timer.daemon = True
    timer.start()


def serve_stdio(args: Any = None) -> int:
    credentials.take_from_environment()  # the agent's shell commands are our children
    learn_environment_secrets()
    setup_logging(EXPECTED_CODES)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print() must not corrupt the protocol stream
    try:
        asyncio.run(serve(stdin, stdout))
    except KeyboardInterrupt:
        return 130
    except SystemExit as done:  # pygls' `exit` handler: 0 after shutdown, 1 without
        return int(done.code or 0)
    return 0
