"""MockAnthropicServer: an Anthropic-compatible Messages API on 127.0.0.1.

Serves POST /v1/messages (JSON or SSE stream) and POST /v1/messages/count_tokens
from a background thread, so it works the same from sync and async tests.
Answers come from, in order: an injected fault, the scripted replies, and
finally the built-in demo agent. Given a list of models it also serves the
Models API and refuses what the real API refuses for them (models.py).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import socket
import struct
import sys
import threading
from collections import deque
from urllib.parse import parse_qs, unquote, urlsplit
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar
from collections.abc import Callable, Iterable

from ..context.images import MAX_REQUEST_BYTES
from .faults import Fault, error_body, fault_from_json, is_fault_entry
from .models import model_entry, models_page, request_problem
from .render import SseEvent, assign_tool_ids, message_json, output_tokens, stream_events, usage_json
from .script import Reply, Text, reply_from_json
from .tokens import MockCache, count_input_tokens
from .validation import request_error

ScriptEntry = Reply | Fault
_Entry = TypeVar("_Entry", Reply, Fault)
# Faults that cut a streamed answer short; the client's retry should get it whole.
_INTERRUPTING = ("disconnect", "truncate", "stream_error", "bad_data")
# The answer to a request nothing was scripted for, when the server was given no responder.
UNSCRIPTED = "[mock API] nothing was scripted for this request, and no responder was given"


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any


def script_entry(raw: Any) -> ScriptEntry:
    """A Reply or Fault from a Python object or its JSON form."""
    if isinstance(raw, (Reply, Fault)):
        return raw
    if is_fault_entry(raw):
        return fault_from_json(raw["fault"])
    return reply_from_json(raw)


def load_script_file(path: str) -> list[ScriptEntry]:
    with open(path, encoding="utf-8") as handle:
        entries = json.load(handle)
    if not isinstance(entries, list):
        raise ValueError(f"{path}: a script file holds a JSON list of replies")
    return [script_entry(e) for e in entries]


class _HttpServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # a hanging handler must not block close()
    mock: MockAnthropicServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients hanging up (cancelled streams, timeouts) is normal here, not worth a traceback.
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class MockAnthropicServer:
    """Anthropic-compatible test server.

        with MockAnthropicServer() as api:
            api.script(Reply([Text("hi")]))
            api.inject(Fault.http_status(529))
            client = anthropic.Anthropic(base_url=api.base_url, api_key="x")
    """

    def __init__(self, port: int = 0, *, script: Iterable[Any] = (), verbose: bool = False,
                 cache: MockCache | None = None, models: Iterable[dict[str, Any]] | None = None,
                 responder: Callable[[dict], Reply] | None = None) -> None:
        self._port = port
        # Answers a request nothing was scripted for (the offline demo passes its brain, demo/brain.py);
        # None: such a request gets the UNSCRIPTED text, so a test that forgot a reply says so plainly.
        self._responder = responder
        # The Models API's entries (mock_model(...)); None: an endpoint without a Models API.
        self.models: list[dict[str, Any]] | None = list(models) if models is not None else None
        self.verbose = verbose
        self.requests: list[RecordedRequest] = []
        self._script: deque[ScriptEntry] = deque(script_entry(e) for e in script)
        self._faults: deque[Fault] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.cache = cache or MockCache()  # the real prompt-cache rules unless told otherwise
        self._ids = itertools.count(1)
        self._connections: set[socket.socket] = set()
        self._http: _HttpServer | None = None
        self._thread: threading.Thread | None = None
        # Called (in the server thread) right after each streamed answer's first text delta
        # is written: benchmarks measure latency from that moment.
        self.on_first_text_delta: Callable[[], None] | None = None
        # Like the real API's context window: a longer prompt gets 400 "prompt is too long".
        self.max_prompt_tokens: int | None = None

    # ------------------------------------------------------------ lifecycle

    def start(self) -> MockAnthropicServer:
        if self._http is None:
            self._http = _HttpServer(("127.0.0.1", self._port), _Handler)
            self._http.mock = self
            self._thread = threading.Thread(target=self._http.serve_forever, kwargs={"poll_interval": 0.02},
                                            name="mock-anthropic-api", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        if self._http is None:
            return
        self._stopping.set()  # wakes hanging and slow handlers
        self._http.shutdown()
        self._http.server_close()
        with self._lock:
            open_connections = list(self._connections)
        for conn in open_connections:  # unblock keep-alive readers
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._http = None

    def serve_forever(self) -> None:
        """Block until interrupted (CLI mode)."""
        self.start()
        try:
            self._stopping.wait()
        finally:
            self.close()

    def __enter__(self) -> MockAnthropicServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> MockAnthropicServer:
        return self.start()

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self.close)  # shutdown() blocks briefly; keep the loop free

    @property
    def port(self) -> int:
        if self._http is None:
            raise RuntimeError("server is not running")
        return self._http.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # ------------------------------------------------------------ test controls

    def script(self, *replies: Any) -> None:
        """Queue replies (Reply objects, their JSON dicts, or plain strings) for the next requests."""
        with self._lock:
            self._script.extend(script_entry(r) for r in replies)

    def inject(self, fault: Fault, times: int = 1) -> None:
        """Queue a fault for each of the next `times` /v1/messages requests (before any script)."""
        with self._lock:
            self._faults.extend([fault] * times)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._script) + len(self._faults)

    @property
    def message_bodies(self) -> list[dict]:
        return [r.body for r in list(self.requests) if r.path == "/v1/messages"]

    # ------------------------------------------------------------ used by the handler

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def next_id(self, prefix: str) -> str:
        return f"{prefix}_mock_{next(self._ids):06d}"

    def next_answer(self, body: dict) -> tuple[Fault | None, Reply | None]:
        """The fault and/or reply for one /v1/messages request.

        A reply streamed under a disconnect/stream_error fault stays queued, so
        the client's retry gets the same answer in full.
        """
        with self._lock:
            fault = self._faults.popleft() if self._faults else None
            if fault is None:
                fault = self._take(Fault)
            if fault is not None and fault.kind in ("status", "hang"):
                return fault, None
            reply = self._take(Reply)
            if reply is not None and fault is not None and fault.kind in _INTERRUPTING:
                self._script.appendleft(reply)
        if reply is not None:
            return fault, reply
        return fault, self._responder(body) if self._responder is not None else Reply([Text(UNSCRIPTED)])

    def _take(self, kind: type[_Entry]) -> _Entry | None:
        """The script's next entry if it is a `kind` (taken off the script), else None. Under the lock."""
        if self._script and isinstance(head := self._script[0], kind):
            self._script.popleft()
            return head
        return None

    def build_message(self, body: dict, reply: Reply) -> dict:
        blocks = assign_tool_ids(reply, lambda: self.next_id("toolu"))
        usage = usage_json(self.cache.observe(body), output_tokens(blocks), reply.usage)
        return message_json(self.next_id("msg"), reply.model or body["model"], blocks,
                            reply.effective_stop_reason, usage)

    def register(self, conn: socket.socket, open_: bool) -> None:
        with self._lock:
            (self._connections.add if open_ else self._connections.discard)(conn)

    def wait(self, seconds: float) -> bool:
        """Sleep; True if the server is closing meanwhile."""
        return self._stopping.wait(seconds) if seconds > 0 else self._stopping.is_set()


class _ConnectionDropped(Exception):
    pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and chunked streaming, like the real API
    server: _HttpServer

    # ------------------------------------------------------------ plumbing

    def setup(self) -> None:
        super().setup()
        # Real API front ends flush small SSE writes at once; without this Nagle's
        # algorithm and delayed ACKs hold each delta ~40 ms and streaming stutters.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.mock.register(self.connection, True)

    def finish(self) -> None:
        self.server.mock.register(self.connection, False)
        try:
            super().finish()
        except (OSError, ValueError):
            pass  # the connection was dropped on purpose or by the client

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.mock.verbose:
            sys.stderr.write(f"mock API: {format % args}\n")

    def do_GET(self) -> None:
        try:
            self._get()
        except (_ConnectionDropped, OSError):
            self.close_connection = True

    def _get(self) -> None:
        mock = self.server.mock
        url = urlsplit(self.path)
        path = url.path.rstrip("/")
        query = parse_qs(url.query)
        mock.record(RecordedRequest(path, {k.lower(): v for k, v in self.headers.items()}, query))
        if not (self.headers.get("x-api-key") or self.headers.get("authorization")):
            self._send_error(401, "authentication_error", "x-api-key header is required")
        elif mock.models is None or not path.startswith("/v1/models"):
            self._send_error(404, "not_found_error", f"Not found: {path}")
        elif path == "/v1/models":
            self._send_json(*models_page(mock.models, query))
        else:
            self._send_json(*model_entry(mock.models, unquote(path[len("/v1/models/"):])))

    def do_POST(self) -> None:
        try:
            self._route()
        except (_ConnectionDropped, OSError):
            self.close_connection = True

    # ------------------------------------------------------------ routing

    def _route(self) -> None:
        mock = self.server.mock
        path = self.path.split("?", 1)[0].rstrip("/")
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        if length > MAX_REQUEST_BYTES and path in ("/v1/messages", "/v1/messages/count_tokens"):
            # docs.claude.com/en/api/errors, "Request size limits": 32 MB, refused before the API reads it
            mock.record(RecordedRequest(path, {k.lower(): v for k, v in self.headers.items()}, None))
            self._send_error(413, "request_too_large", "Request exceeds the maximum allowed number of bytes.")
            return
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            body = None
        mock.record(RecordedRequest(path, {k.lower(): v for k, v in self.headers.items()}, body))

        if not (self.headers.get("x-api-key") or self.headers.get("authorization")):
            self._send_error(401, "authentication_error", "x-api-key header is required")
        elif path == "/v1/messages":
            self._messages(body)
        elif path == "/v1/messages/count_tokens":
            self._count_tokens(body)
        else:
            self._send_error(404, "not_found_error", f"Not found: {path}")

    def _count_tokens(self, body: Any) -> None:
        problem = request_error({"max_tokens": 1_000_000, **body} if isinstance(body, dict) else body)
        models = self.server.mock.models
        refused = request_problem(models, {"model": body["model"]}) if models is not None and not problem else None
        if problem:
            self._send_error(400, "invalid_request_error", problem)
        elif refused is not None:
            self._send_error(*refused)
        else:
            self._send_json(200, {"input_tokens": count_input_tokens(body)})

    def _messages(self, body: Any) -> None:
        mock = self.server.mock
        problem = request_error(body)
        if problem:
            self._send_error(400, "invalid_request_error", problem)
            return
        refused = request_problem(mock.models, body) if mock.models is not None else None
        if refused is not None:
            self._send_error(*refused)
            return
        size = count_input_tokens(body)
        if mock.max_prompt_tokens is not None and size > mock.max_prompt_tokens:
            self._send_error(400, "invalid_request_error",
                             f"prompt is too long: {size} tokens > {mock.max_prompt_tokens} maximum")
            return
        fault, reply = mock.next_answer(body)
        if fault is not None and fault.kind == "hang":
            mock.wait(3600)
            self.close_connection = True
            return
        if fault is not None and fault.kind == "status":
            headers = {"retry-after": f"{fault.retry_after:g}"} if fault.retry_after is not None else {}
            self._send_error(fault.status, fault.error_type, fault.message, headers)
            return
        assert reply is not None
        message = mock.build_message(body, reply)
        if body.get("stream"):
            self._stream(stream_events(message), reply.chunk_delay, fault)
        else:
            self._reply_once(message, fault)

    # ------------------------------------------------------------ answers

    def _reply_once(self, message: dict, fault: Fault | None) -> None:
        if fault is not None and fault.kind in ("disconnect", "truncate"):
            self._drop(fault.reset)
        if fault is not None and fault.kind == "stream_error":
            self._send_error(529 if fault.error_type == "overloaded_error" else 500, fault.error_type, fault.message)
            return
        if fault is not None and fault.kind == "slow":
            self.server.mock.wait(fault.delay)
        self._send_json(200, message)

    def _stream(self, events: list[SseEvent], chunk_delay: float, fault: Fault | None) -> None:
        mock = self.server.mock
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", mock.next_id("req"))
        self.end_headers()
        per_event_delay = fault.delay if fault is not None and fault.kind == "slow" else 0.0
        first_text = True
        for index, event in enumerate(events):
            if fault is not None and fault.kind in _INTERRUPTING and index == fault.after_events:
                if fault.kind == "disconnect":
                    self._drop(fault.reset)
                if fault.kind == "stream_error":
                    self._write_chunk(SseEvent("error", error_body(fault.error_type, fault.message)).encode())
                if fault.kind == "bad_data":
                    self._write_chunk(b'event: content_block_delta\ndata: {"type": "content_block_delta", "ind\n\n')
                break
            delay = per_event_delay + (chunk_delay if event.name == "content_block_delta" else 0.0)
            if mock.wait(delay):
                self._drop(reset=False)
            # noted before the write: once written, the client may act on it before this thread runs again
            if first_text and event.name == "content_block_delta" and mock.on_first_text_delta is not None:
                if event.data.get("delta", {}).get("type") == "text_delta":
                    first_text = False
                    mock.on_first_text_delta()
            self._write_chunk(event.encode())
        self._write_chunk(b"")  # terminating chunk

    # ------------------------------------------------------------ low level

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _drop(self, reset: bool) -> None:
        """Cut the connection mid-answer (RST when `reset`, else FIN)."""
        conn = self.connection
        try:
            if reset:
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.rfile.close()
                conn.close()
            else:
                conn.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.close_connection = True
        raise _ConnectionDropped()

    def _send_json(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", self.server.mock.next_id("req"))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_error(self, status: int, error_type: str, message: str, headers: dict[str, str] | None = None) -> None:
        self._send_json(status, error_body(error_type, message), headers)
