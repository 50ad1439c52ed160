"""The mock API's HTTP side: one request handler that reads a request, asks its MockAnthropicServer
for the answer (a fault, a scripted reply, the responder's) and writes it as JSON or an SSE stream,
carrying out the fault (a drop, a cut, a delay) on the way."""

from __future__ import annotations

import json
import socket
import struct
import sys
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from collections.abc import Callable
from typing import Any, Protocol
from urllib.parse import parse_qs, unquote, urlsplit

from ..context.images import MAX_REQUEST_BYTES
from .faults import INTERRUPTING, Fault, error_body
from .models import model_entry, models_page, request_problem
from .render import SseEvent, stream_events
from .rules import Admission, RequestRules
from .script import Reply
from .tool_search import ScriptRefused
from .tokens import count_input_tokens
from .validation import request_error


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any

class Answering(Protocol):
    """What the handler asks of its server (MockAnthropicServer): the answer to each request, and its settings."""

    models: list[dict[str, Any]] | None
    models_delay: float
    verbose: bool
    on_first_text_delta: Callable[[], None] | None
    max_prompt_tokens: int | None
    rules: RequestRules

    def record(self, request: RecordedRequest) -> None: ...

    def refused(self, status: int, message: str) -> None: ...
    def next_id(self, prefix: str) -> str: ...
    def admit(self, body: dict, headers: dict[str, str]) -> Admission | str: ...
    def next_answer(self, body: dict, fallback: Reply | None = None) -> tuple[Fault | None, Reply | None]: ...
    def build_message(self, body: dict, reply: Reply, admission: Admission) -> dict: ...
    def register(self, conn: socket.socket, open_: bool) -> None: ...
    def wait(self, seconds: float) -> bool: ...


class HttpServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # a hanging handler must not block close()
    mock: Answering

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients hanging up (cancelled streams, timeouts) is normal here, not worth a traceback.
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class _ConnectionDropped(Exception):
    pass


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and chunked streaming, like the real API
    server: HttpServer

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
            if mock.wait(mock.models_delay):  # a slow Models API (models_delay seconds per page)
                return
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
        admission = mock.admit(body, {k.lower(): v for k, v in self.headers.items()})
        if isinstance(admission, str):
            self._send_error(400, "invalid_request_error", admission)
            return
        size = count_input_tokens(admission.counted)
        refused = request_problem(mock.models, body, size) if mock.models is not None else None
        if refused is not None:
            self._send_error(*refused)
            return
        if mock.max_prompt_tokens is not None and size > mock.max_prompt_tokens:
            self._send_error(400, "invalid_request_error",
                             f"prompt is too long: {size} tokens > {mock.max_prompt_tokens} maximum")
            return
        fault, reply = mock.next_answer(body, mock.rules.fallback(admission))
        if fault is not None and fault.kind == "hang":
            mock.wait(3600)
            self.close_connection = True
            return
        if fault is not None and fault.kind == "status":
            headers = {"retry-after": f"{fault.retry_after:g}"} if fault.retry_after is not None else {}
            self._send_error(fault.status, fault.error_type, fault.message, headers)
            return
        assert reply is not None
        try:
            message = mock.build_message(body, reply, admission)
        except ScriptRefused as refused:  # a reply the model could not give: the test's script is wrong
            self._send_error(400, "invalid_request_error", str(refused))
            return
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
            if fault is not None and fault.kind in INTERRUPTING and index == fault.after_events:
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
        self.server.mock.refused(status, message)
        self._send_json(status, error_body(error_type, message), headers)
