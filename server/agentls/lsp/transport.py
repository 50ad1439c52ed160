"""JSON-RPC over stdio without dropping a request, and server→client requests that can be cancelled.

pygls' own read loop decodes with an object hook that runs on *every* nested
dict (a `jsonrpc` key deep inside params is taken for a message, a
`type_name` key can crash the namedtuple conversion) and a request it cannot
structure gets no answer at all. Here each message is decoded once, only
its top level is structured, custom (agent/*) params and results stay plain
dicts, and a request that cannot be structured still gets an error.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import uuid
from typing import Any, BinaryIO

from lsprotocol import types
from pygls.io_ import StdinAsyncReader, StdoutWriter
from pygls.protocol import JsonRPCNotification, JsonRPCProtocol, JsonRPCRequestMessage, JsonRPCResponseMessage
from pygls.protocol import default_converter

from ..agent.mcp.config import raw_secret_values
from .errors import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR
from ..agent.secrets import SECRETS

log = logging.getLogger(__name__)


def raw_converter():
    """pygls' converter, except that untyped params/results stay as decoded JSON."""
    converter = default_converter()
    converter.register_structure_hook(JsonRPCRequestMessage, lambda obj, cls: cls(
        id=obj["id"], method=obj["method"], jsonrpc=obj["jsonrpc"], params=obj.get("params")))
    converter.register_structure_hook(JsonRPCNotification, lambda obj, cls: cls(
        method=obj["method"], jsonrpc=obj["jsonrpc"], params=obj.get("params")))
    converter.register_structure_hook(JsonRPCResponseMessage, lambda obj, cls: cls(
        id=obj["id"], jsonrpc=obj["jsonrpc"], result=obj.get("result")))
    return converter


# ---------------------------------------------------------------- streams

async def open_stdio(stdin: BinaryIO, stdout: BinaryIO) -> tuple[Any, Any]:
    """Non-blocking pipe transports when stdio are pipes (no thread hop per message),
    else pygls' thread-backed reader and plain writer (ttys, files)."""
    loop = asyncio.get_running_loop()
    if not (os.isatty(stdin.fileno()) or os.isatty(stdout.fileno())):
        try:
            reader = asyncio.StreamReader(limit=1 << 24)
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
            transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, stdout)
            return reader, asyncio.StreamWriter(transport, protocol, None, loop)
        except (ValueError, OSError):
            pass
    return StdinAsyncReader(stdin), StdoutWriter(stdout)


async def read_message(reader: Any) -> bytes | None:
    """The next message body, or None at end of input."""
    while True:
        length = None
        while True:
            line = await reader.readline()
            if not line:
                return None
            line = line.strip()
            if not line:
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                try:
                    length = int(value.strip())
                except ValueError:
                    length = None
        if length is None or length < 0:
            continue  # a header block without a usable length: skip it
        try:
            body = await reader.readexactly(length)
        except asyncio.IncompleteReadError:
            return None
        if len(body) < length:
            return None
        return body


async def serve_messages(reader: Any, protocol: JsonRPCProtocol) -> None:
    while (body := await read_message(reader)) is not None:
        dispatch(protocol, body)


# ---------------------------------------------------------------- dispatch

def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def send_error(protocol: JsonRPCProtocol, msg_id: Any, code: int, message: str) -> None:
    protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})


BIG_MESSAGE = 1 << 20  # bytes: decoded with the cyclic GC paused (see _decode)


def _decode(body: bytes) -> Any:
    """JSON of one message. A big one (an editor's 220,000 locations: 28 MB) creates a million
    containers, and the collections they trigger while it is decoded double the time the loop waits."""
    if len(body) < BIG_MESSAGE or not gc.isenabled():
        return json.loads(body)
    gc.disable()
    try:
        return json.loads(body)
    finally:
        gc.enable()


def dispatch(protocol: JsonRPCProtocol, body: bytes) -> None:
    try:
        data = _decode(body)
    except (ValueError, RecursionError):
        send_error(protocol, None, PARSE_ERROR, "Parse error: the message is not valid JSON")
        return
    if not isinstance(data, dict):
        send_error(protocol, None, INVALID_REQUEST, "Invalid request: a message must be a JSON object")
        return
    has_id = "id" in data
    msg_id = data.get("id")
    method = data.get("method")
    problem = None
    if data.get("jsonrpc") != "2.0":
        problem = 'jsonrpc must be "2.0"'
    elif "method" in data and not isinstance(method, str):
        problem = "method must be a string"
    elif has_id and not _valid_id(msg_id):
        problem = "id must be a string or an integer"
    elif not has_id and method is None:
        problem = "a message needs a method or an id"
    if problem is not None:
        if ("method" in data) != has_id:  # a notification or a response: nobody to answer
            log.warning("dropped a message: %s", problem)
        else:
            send_error(protocol, msg_id if _valid_id(msg_id) else None, INVALID_REQUEST, f"Invalid request: {problem}")
        return
    if method == types.INITIALIZE:
        _learn_key(data.get("params"))
    try:
        message = protocol.structure_message(data)
    except Exception:  # noqa: BLE001 - answered below
        if method is not None and has_id:
            send_error(protocol, msg_id, INVALID_PARAMS, f"Invalid params for {method}")
        elif method is None and has_id:
            # A response we could not read: fail the waiting request rather than hang it.
            assert isinstance(msg_id, (str, int))  # has_id and no problem above: _valid_id(msg_id) held
            protocol._handle_response(msg_id, None, types.ResponseError(INTERNAL_ERROR, "malformed response"))
        else:
            log.warning("dropped a malformed %s notification", method)
        return
    try:
        protocol.handle_message(message)
    except Exception:  # noqa: BLE001 - one bad message must not end the read loop
        log.exception("handling a %s message failed", method or "response")


def _learn_key(params: Any) -> None:
    """Register the apiKey (and MCP env/header values) before pygls gets a chance to log the initialize params."""
    if isinstance(params, dict) and isinstance(params.get("initializationOptions"), dict):
        options = params["initializationOptions"]
        SECRETS.add(options.get("apiKey"))
        if isinstance(options.get("settings"), dict):
            for value in raw_secret_values(options["settings"].get("mcpServers")):
                SECRETS.add(value)


# ---------------------------------------------------------------- server → client requests

async def client_request(protocol: JsonRPCProtocol, method: str, params: Any) -> Any:
    """Ask the client; when our caller is cancelled, tell the client with $/cancelRequest."""
    msg_id = f"agentls-{uuid.uuid4().hex[:12]}"
    future = protocol.send_request(method, params, msg_id=msg_id)
    try:
        return await asyncio.wrap_future(future)
    except asyncio.CancelledError:
        protocol._request_futures.pop(msg_id, None)
        protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
        raise
