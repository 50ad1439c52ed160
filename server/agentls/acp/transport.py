"""ACP over stdio: newline-delimited JSON-RPC, and every unreadable line answered.

The SDK's stdio transport logs a line that is not JSON, or not a JSON object,
and skips it, so a client waiting for an answer waits forever. JSON-RPC 2.0
(§5, §5.1) answers it: -32700 "Parse error" for text that is not JSON, -32600
"Invalid request" for JSON that is not a request, with `id: null` unless the
message carried a usable id. JSON nested past json's recursion limit (~1,000
levels) raises RecursionError, not ValueError: uncaught, it ended the SDK's
receive loop and the process; it is a -32700 here, and a message nested more
than MAX_DEPTH levels is a -32600 before anything else walks it. The SDK accepts any object with `send`,
`receive` and `close` as its message transport (acp._transport.Transport,
the seam its HTTP and WebSocket transports use), so this module only moves
lines; requests, routing, validation and answers stay the SDK's.

stdout belongs to the protocol alone: the process's own fd 1 is pointed at
stderr before anything runs, so a stray print (or a child process) cannot
corrupt the stream.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

LINE_LIMIT = 50 * 1024 * 1024  # bytes in one message (the SDK's default buffer for multimodal content)
# Levels of nesting in one message: ACP's own schema needs under 10; everything past the SDK (pydantic
# validation, our handlers, logging) may recurse per level, so a deep message is refused here, answered.
MAX_DEPTH = 64
Predicate = Callable[[dict[str, Any]], bool]


def invalid(message: Any) -> str | None:
    """Why a decoded message is not a JSON-RPC 2.0 request, notification or response; None if it is one."""
    if not isinstance(message, dict):
        return "a message must be a JSON object (batches are not used by ACP)"
    if message.get("jsonrpc") != "2.0":
        return 'missing "jsonrpc": "2.0"'
    if "id" in message and not _valid_id(message["id"]):
        return '"id" must be a string, an integer or null'
    if "method" in message:
        if not isinstance(message["method"], str) or not message["method"]:
            return '"method" must be a non-empty string'
        if "params" in message and not isinstance(message["params"], (dict, list)):
            return '"params" must be an object or an array'
        return None
    if "id" in message and ("result" in message or "error" in message):
        return None
    return 'neither a request (no "method") nor a response (no "result" or "error")'


def _deeper_than(value: Any, limit: int) -> bool:
    """More than `limit` levels of arrays and objects (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in (node.values() if isinstance(node, dict) else node))
    return False


def _valid_id(value: Any) -> bool:
    return value is None or isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


class _Pipe(asyncio.Protocol):
    """Flow control of the write end: a full pipe pauses the writer, the client reading resumes it."""

    def __init__(self) -> None:
        self.writable = asyncio.Event()
        self.writable.set()
        self.lost = False

    def pause_writing(self) -> None:
        self.writable.clear()

    def resume_writing(self) -> None:
        self.writable.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self.writable.set()


class LineTransport:
    """The SDK's message transport over a line reader and a byte writer."""

    def __init__(self, reader: asyncio.StreamReader, write: Callable[[bytes], Any], drained: Callable[[], Any],
                 close: Callable[[], None]) -> None:
        self._reader = reader
        self._write = write
        self._drained = drained
        self._close = close
        self._lock = asyncio.Lock()
        self._waiting: list[tuple[Predicate, asyncio.Future[None]]] = []

    async def send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        async with self._lock:  # one message at a time, whole
            self._write(data)
            await self._drained()
        for entry in list(self._waiting):
            predicate, future = entry
            if not future.done() and predicate(message):
                future.set_result(None)
                self._waiting.remove(entry)

    def after(self, predicate: Predicate) -> asyncio.Future[None]:
        """Resolves once a message matching `predicate` has been written (e.g. an answer the client awaits)."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append((predicate, future))
        return future

    async def receive(self) -> dict[str, Any] | None:
        while True:
            try:
                line = await self._reader.readline()
            except ValueError:  # longer than LINE_LIMIT: the reader dropped it
                await self._refuse(None, -32600, "Invalid request", f"a message is limited to {LINE_LIMIT} bytes")
                continue
            if not line:
                return None  # the client closed stdin: the session is over
            line = line.strip()
            if not line:
                continue
            try:
                message = json.loads(line)
            except ValueError as error:
                await self._refuse(None, -32700, "Parse error", f"not JSON: {error}")
                continue
            except RecursionError:  # json's decoder recurses per level: ~1,000 levels end its stack
                await self._refuse(None, -32700, "Parse error", "JSON nested too deeply to read")
                continue
            if _deeper_than(message, MAX_DEPTH):
                ident = message.get("id") if isinstance(message, dict) and _valid_id(message.get("id")) else None
                await self._refuse(ident, -32600, "Invalid request", f"JSON nested more than {MAX_DEPTH} levels deep")
                continue
            problem = invalid(message)
            if problem is not None:
                ident = message.get("id") if isinstance(message, dict) and _valid_id(message.get("id")) else None
                await self._refuse(ident, -32600, "Invalid request", problem)
                continue
            return message

    async def _refuse(self, ident: Any, code: int, text: str, details: str) -> None:
        log.warning("refused a message from the client: %s", details)
        await self.send({"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": text,
                                                                  "data": {"details": details}}})

    async def close(self) -> None:
        for _, future in self._waiting:
            if not future.done():
                future.cancel()
        self._close()


async def stdio_transport() -> LineTransport:
    """The protocol on this process's stdin/stdout; fd 1 is stderr from here on for everything else."""
    loop = asyncio.get_running_loop()
    out = os.dup(sys.stdout.fileno())
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # prints and children's output go to stderr

    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    except ValueError:  # a regular file (`agentls acp < requests.jsonl`): read it in a thread
        _feed_from_thread(loop, reader, sys.stdin.buffer)

    pipe = _Pipe()
    output = os.fdopen(out, "wb", buffering=0)
    try:
        transport, _ = await loop.connect_write_pipe(lambda: pipe, output)
    except ValueError:  # a regular file: plain writes
        return LineTransport(reader, output.write, _nothing, output.close)

    def write(data: bytes) -> None:
        if pipe.lost or transport.is_closing():
            raise ConnectionError("the client closed the connection")
        transport.write(data)

    async def drained() -> None:
        await pipe.writable.wait()
        if pipe.lost:
            raise ConnectionError("the client closed the connection")

    return LineTransport(reader, write, drained, transport.close)


async def _nothing() -> None:
    return None


def _feed_from_thread(loop: asyncio.AbstractEventLoop, reader: asyncio.StreamReader, source: Any) -> None:
    def pump() -> None:
        try:
            for line in iter(source.readline, b""):
                loop.call_soon_threadsafe(reader.feed_data, line)
        finally:
            loop.call_soon_threadsafe(reader.feed_eof)

    threading.Thread(target=pump, name="acp-stdin", daemon=True).start()
