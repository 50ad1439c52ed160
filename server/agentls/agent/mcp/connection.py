"""One MCP server: started on demand, held open by its own task, stopped on request.

The SDK's `Client` is an async context manager whose task group must be
left by the task that entered it, so a connection runs in a task of its own
(`_hold`) that enters the client, lists the tools, reports ready and waits
for `stop()`. Calls come from the agent's turn; any failure (the process
died, the HTTP server went away, no answer in time) ends with a readable
`McpFailure` and a stopped connection, which the next call starts again.

The server's stderr goes to a temporary file, so a crash can be explained
with its last lines; `env` and `header` values are scrubbed from everything
this module reports.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import sys
import tempfile
import threading
from typing import Any

from ..secrets import mask_values
from .config import ServerConfig
from .limits import OverLimit, check_limits

log = logging.getLogger(__name__)

CONNECTION_CLOSED, REQUEST_TIMEOUT = -32000, -32001  # the SDK's codes (mcp_types.jsonrpc)
STDERR_TAIL = 600  # characters of the server's stderr quoted in an error
STOP_TIMEOUT = 8.0  # the SDK gives a stdio server 2 s after stdin closes, then 2 s after SIGTERM

IDLE, STARTING, RUNNING, FAILED, STOPPED = "idle", "starting", "running", "failed", "stopped"


class McpFailure(Exception):
    """A server could not start or a call failed; the message is safe to show."""


class McpConnection:
    def __init__(self, config: ServerConfig, cwd: str | None = None) -> None:
        self.config = config
        self.cwd = config.cwd or cwd
        self.state = IDLE
        self.error = ""
        self.tools: list[Any] = []  # the SDK's Tool objects from the last listing
        self.removed = asyncio.Event()  # no longer configured: never started again, pending approvals cancelled
        self._client: Any = None
        self._task: asyncio.Task[None] | None = None
        self._stopping: set[asyncio.Task[None]] = set()  # holding tasks still closing their server
        self._stop = asyncio.Event()
        self._lock = asyncio.Lock()
        self._stderr: Any = None

    # ---- lifecycle ------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.state == RUNNING and self._task is not None and not self._task.done()

    async def ensure_started(self) -> None:
        async with self._lock:
            if self.removed.is_set():
                raise McpFailure(f"MCP server '{self.config.name}' was removed from the settings")
            if self.running:
                return
            await self._halt()
            await self._start()

    async def _start(self) -> None:
        """Start, connect and list the tools within `startupTimeout`, the clean-up of a start that failed
        included (a server slow to stop is stopped in the background, see _halt)."""
        self.state, self.error = STARTING, ""
        loop = asyncio.get_running_loop()
        timeout = self.config.startup_timeout
        ready: asyncio.Future[None] = loop.create_future()
        ready.add_done_callback(_retrieved)  # a failure reported after we stopped waiting is not "never retrieved"
        self._stop = asyncio.Event()
        try:
            await import_sdk()  # once per process, warmed as soon as a server is configured (warm_sdk)
            deadline = loop.time() + timeout
            self._task = asyncio.ensure_future(self._hold(ready, self._stop))
            await asyncio.wait_for(asyncio.shield(ready), max(0.0, deadline - loop.time()))
        except asyncio.TimeoutError:
            ready.cancel()
            await self._halt(deadline)
            self._fail(f"did not start within {timeout:g} s")
        except asyncio.CancelledError:
            ready.cancel()
            await self._halt(loop.time())  # at once: whoever cancelled us is not kept waiting
            self.state = STOPPED
            raise
        except Exception as error:  # noqa: BLE001 - whatever went wrong, the user reads why
            await self._halt(deadline)
            cause = first_cause(error)
            if isinstance(cause, OverLimit):  # limits.py: said as it is, and none of its tools offered
                self.tools = []
                self._fail(str(cause))
            self._fail(f"could not start: {describe(error)}")
        self.state = RUNNING

    async def _hold(self, ready: asyncio.Future[None], stop: asyncio.Event) -> None:
        """Hold the client open until `stop`. Only the connection's current holding task speaks for it: one
        let go by _halt (a start cancelled or past its deadline) may end its server after the next start is
        running (slow to close on a busy machine), and must touch neither that one's client nor its state."""
        try:
            async with self._open() as client:
                tools = await _list_tools(client, self.config.startup_timeout)
                check_limits(tools)
                if self._holds():
                    self.tools = tools
                    self._client = client
                if not ready.done():
                    ready.set_result(None)
                await stop.wait()
        except BaseException as error:  # noqa: BLE001 - reported through `ready` or the state
            if not ready.done():
                ready.set_exception(error if isinstance(error, Exception) else McpFailure(describe(error)))
            elif self.state == RUNNING and self._holds():
                self.state, self.error = FAILED, self.scrub(f"the connection ended: {describe(error)}")
            if isinstance(error, asyncio.CancelledError):
                raise
        finally:
            if self._holds():  # the server ended by itself: a stop lets the task go first (_halt)
                self._client = None
                if self.state == RUNNING:
                    self.state, self.error = FAILED, self.error or "the connection ended"

    def _holds(self) -> bool:
        """Whether the running task is the connection's current holding task."""
        return self._task is not None and self._task is asyncio.current_task()

    def _open(self) -> Any:
        from mcp import Client
        from mcp.client.stdio import StdioServerParameters, stdio_client
        from mcp.client.streamable_http import streamable_http_client

        config = self.config
        if config.url:
            import httpx2

            http = httpx2.AsyncClient(headers=config.headers, timeout=httpx2.Timeout(30.0, read=300.0))
            transport = streamable_http_client(config.url, http_client=http)
            return _with_http_client(http, Client(transport, client_info=_client_info()))
        self.close_log()  # a fresh log per start: an old crash must not explain a new failure
        self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
        params = StdioServerParameters(command=config.command or "", args=list(config.args),
                                       env=config.env or None, cwd=self.cwd)
        return Client(stdio_client(params, errlog=self._stderr), client_info=_client_info())

    async def stop(self) -> None:
        async with self._lock:
            await self._halt()
            if self.state != FAILED:
                self.state = STOPPED if self.state != IDLE else IDLE
        await self.stopped()

    async def stopped(self) -> None:
        """Wait (bounded) for servers still stopping in the background."""
        if self._stopping:
            await asyncio.wait(list(self._stopping), timeout=STOP_TIMEOUT)

    async def _halt(self, deadline: float | None = None) -> None:
        """End the holding task (closing the server), waiting for it until `deadline` (loop time; default
        STOP_TIMEOUT from now). A task not done by then is cancelled and finishes in the background:
        the SDK's own shutdown (stdin closed, SIGTERM, SIGKILL) is bounded, and `stopped()` waits for it."""
        task, self._task = self._task, None  # let go: from now on it speaks no more for the connection
        if task is None:
            return
        self._client = None
        self._stop.set()
        loop = asyncio.get_running_loop()
        wait = STOP_TIMEOUT if deadline is None else max(0.0, deadline - loop.time())
        done, _ = await asyncio.wait([task], timeout=wait) if wait > 0 else (set(), set())
        if not done:
            task.cancel()
            self._stopping.add(task)
            task.add_done_callback(self._stopping.discard)
            task.add_done_callback(_retrieved)

    def close_log(self) -> None:
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    # ---- use ----------------------------------------------------------------------

    async def relist(self) -> None:
        """Fetch the tool list again (the server may have changed it)."""
        client = self._client
        if client is None or not self.running:
            return
        try:
            tools = await _list_tools(client, self.config.startup_timeout)
        except Exception as error:  # noqa: BLE001 - a listing that fails keeps the tools we knew
            log.info("listing the tools of MCP server %s failed: %s", self.config.name, type(error).__name__)
            return
        try:
            check_limits(tools)
        except OverLimit as problem:
            self.tools = []
            await self._broken(str(problem))  # raises McpFailure: refresh() reports it
        self.tools = tools

    async def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        """The CallToolResult; McpFailure (and a stopped connection) when the server failed us."""
        await self.ensure_started()
        client = self._client
        timeout = self.config.timeout
        try:
            # The SDK's read timeout answers first; the outer bound catches a transport that never returns.
            return await asyncio.wait_for(client.call_tool(tool, arguments, read_timeout_seconds=timeout),
                                          timeout + 5)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - protocol errors, timeouts and lost connections alike
            code = _error_code(error)
            if code is not None and code not in (CONNECTION_CLOSED, REQUEST_TIMEOUT) and self.running:
                raise McpFailure(
                    self.scrub(f"MCP server '{self.config.name}' refused the call: {describe(error)}")) from error
            if code == REQUEST_TIMEOUT or isinstance(error, (asyncio.TimeoutError, TimeoutError)):
                what = f"did not answer within {timeout:g} s; the call was abandoned and the server stopped"
            elif code == CONNECTION_CLOSED:
                what = "closed the connection during the call (it exited or crashed)"
            else:
                what = f"failed during the call ({describe(error)}); the server was stopped"
            await self._broken(what + " (the next call starts it again)")
        raise AssertionError("unreachable")

    async def _broken(self, what: str) -> None:
        message = self.scrub(f"MCP server '{self.config.name}' {what}{self.stderr_tail()}")
        async with self._lock:
            await self._halt()
        self.state, self.error = FAILED, message
        raise McpFailure(message)

    def _fail(self, what: str) -> None:
        self.state = FAILED
        self.error = self.scrub(f"MCP server '{self.config.name}' {what}{self.stderr_tail()}")
        raise McpFailure(self.error)

    def stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.flush()
            self._stderr.seek(0, 2)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - STDERR_TAIL * 4))
            tail = self._stderr.read()[-STDERR_TAIL:].strip()
        except (OSError, ValueError):
            return ""
        return f"\nIts last stderr output:\n{tail}" if tail else ""

    def scrub(self, text: str) -> str:
        return mask_values(text, self.config.secret_values())


@contextlib.asynccontextmanager
async def _with_http_client(http: Any, client: Any):
    async with http:
        async with client:
            yield client


async def _list_tools(client: Any, timeout: float) -> list[Any]:
    tools: list[Any] = []
    cursor = None
    with _deadline(timeout):
        for _ in range(100):  # a paginator that never ends cannot hang a turn
            page = await client.list_tools(cursor=cursor, cache_mode="refresh")
            tools.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
    return tools


@contextlib.contextmanager
def _deadline(seconds: float):
    import anyio

    with anyio.fail_after(seconds):
        yield


SDK_MODULES = ("mcp", "mcp.client.stdio", "mcp.client.streamable_http", "httpx2", "mcp_types")


_warming: list[threading.Thread] = []


def _import_all() -> None:
    for name in SDK_MODULES:
        importlib.import_module(name)


def warm_sdk() -> None:
    """Load the SDK in a background thread as soon as a server is configured: the first start then
    does not spend its startupTimeout on agentls's own imports."""
    if not _warming and not all(name in sys.modules for name in SDK_MODULES):
        thread = threading.Thread(target=_import_all, name="agentls-mcp-import", daemon=True)
        _warming.append(thread)
        thread.start()


async def import_sdk() -> None:
    """The SDK takes seconds to import (it pulls in its server side too): do it in a thread, never on the loop."""
    if all(name in sys.modules for name in SDK_MODULES):
        return
    await asyncio.to_thread(lambda: [importlib.import_module(name) for name in SDK_MODULES])


def _client_info() -> Any:
    from mcp_types import Implementation

    from ... import __version__

    return Implementation(name="agentls", version=__version__)


def _error_code(error: BaseException) -> int | None:
    """The JSON-RPC code of an MCPError (the server answered, or the SDK gave up), else None."""
    from mcp.shared.exceptions import MCPError

    return error.code if isinstance(error, MCPError) else None


def _retrieved(future: asyncio.Future[Any]) -> None:
    """Mark a future's outcome as seen: a start abandoned at its deadline may still fail later."""
    if not future.cancelled():
        future.exception()


def first_cause(error: BaseException) -> BaseException:
    """An exception group unwrapped to its first exception (anyio task groups raise groups)."""
    while exceptions := getattr(error, "exceptions", None):
        error = exceptions[0]
    return error


def describe(error: BaseException) -> str:
    """One line for an exception, exception groups unwrapped to their first cause."""
    error = first_cause(error)
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
