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
import threading
from collections import deque
from typing import Any, TypeVar
from collections.abc import Callable, Iterable

from .faults import INTERRUPTING, Fault, fault_from_json, is_fault_entry
from .handler import Handler, HttpServer, RecordedRequest
from .render import assign_tool_ids, block_json, message_json, output_tokens, usage_json
from .rules import Admission, RequestRules
from .script import Reply, Text, ToolSearch, reply_from_json
from .tool_search import check_reply, searched
from .tokens import MockCache

ScriptEntry = Reply | Fault
_Entry = TypeVar("_Entry", Reply, Fault)
# The answer to a request nothing was scripted for, when the server was given no responder.
UNSCRIPTED = "[mock API] nothing was scripted for this request, and no responder was given"



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


class MockAnthropicServer:
    """Anthropic-compatible test server.

        with MockAnthropicServer() as api:
            api.script(Reply([Text("hi")]))
            api.inject(Fault.http_status(529))
            client = anthropic.Anthropic(base_url=api.base_url, api_key="x")
    """

    def __init__(self, port: int = 0, *, script: Iterable[Any] = (), verbose: bool = False,
                 cache: MockCache | None = None, models: Iterable[dict[str, Any]] | None = None,
                 responder: Callable[[dict], Reply] | None = None, thinking_mismatch: str = "error",
                 always_think: bool = False) -> None:
        self._port = port
        # Today's API rules (rules.py): thinking signed and checked, and what a request that carries a thinking
        # block that fails the check gets unless it chooses: "error" (a 400), "drop" (dropped), "off" (no check).
        # `always_think`: a reply to adaptive thinking starts with a thinking block even when scripted without.
        self.rules = RequestRules(thinking_mismatch, always_think)
        # Answers a request nothing was scripted for (the offline demo passes its brain, demo/brain.py);
        # None: such a request gets the UNSCRIPTED text, so a test that forgot a reply says so plainly.
        self._responder = responder
        # The Models API's entries (mock_model(...)); None: an endpoint without a Models API.
        self.models: list[dict[str, Any]] | None = list(models) if models is not None else None
        self.models_delay = 0.0  # seconds the Models API takes to answer each page (a slow endpoint)
        self.verbose = verbose
        self.requests: list[RecordedRequest] = []
        self.answered: list[tuple[dict, dict]] = []  # (request body, the message answered): usage per request
        self.refusals: list[tuple[int, str]] = []  # (status, message) of every error answer, injected faults too
        self._script: deque[ScriptEntry] = deque(script_entry(e) for e in script)
        self._faults: deque[Fault] = deque()
        # Scripts of their own for the requests whose user text holds a marker (script_for): side-by-side
        # conversations (subagents) get their answers whatever order their requests arrive in.
        self._routes: list[tuple[str, deque[ScriptEntry]]] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.cache = cache or MockCache()  # the real prompt-cache rules unless told otherwise
        self._ids = itertools.count(1)
        self._connections: set[socket.socket] = set()
        self._http: HttpServer | None = None
        self._thread: threading.Thread | None = None
        # Called (in the server thread) right after each streamed answer's first text delta
        # is written: benchmarks measure latency from that moment.
        self.on_first_text_delta: Callable[[], None] | None = None
        # Like the real API's context window: a longer prompt gets 400 "prompt is too long".
        self.max_prompt_tokens: int | None = None

    # ------------------------------------------------------------ lifecycle

    def start(self) -> MockAnthropicServer:
        if self._http is None:
            self._http = HttpServer(("127.0.0.1", self._port), Handler)
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

    def script_for(self, marker: str, *replies: Any) -> None:
        """Queue replies (or faults) for the requests whose user messages hold `marker` in a text block: taken
        before the main script, in order; the first marker found in a request wins."""
        with self._lock:
            for known, queue in self._routes:
                if known == marker:
                    queue.extend(script_entry(r) for r in replies)
                    return
            self._routes.append((marker, deque(script_entry(r) for r in replies)))

    def _routed(self, body: dict) -> deque[ScriptEntry] | None:
        """The script of the first marker this request's user texts hold (None: the main script). Under the lock."""
        if not self._routes:
            return None
        texts = []
        for message in body.get("messages") or []:
            if not isinstance(message, dict) or message.get("role") != "user":
                continue
            content = message.get("content")
            if isinstance(content, str):
                texts.append(content)
            elif isinstance(content, list):
                texts += [str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text"]
        joined = "\n".join(texts)
        for marker, queue in self._routes:
            if marker in joined:
                return queue
        return None

    def inject(self, fault: Fault, times: int = 1) -> None:
        """Queue a fault for each of the next `times` /v1/messages requests (before any script)."""
        with self._lock:
            self._faults.extend([fault] * times)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._script) + len(self._faults) + sum(len(queue) for _, queue in self._routes)

    @property
    def message_bodies(self) -> list[dict]:
        return [r.body for r in list(self.requests) if r.path == "/v1/messages"]

    # ------------------------------------------------------------ used by the handler

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def refused(self, status: int, message: str) -> None:
        with self._lock:
            self.refusals.append((status, message))

    def next_id(self, prefix: str) -> str:
        return f"{prefix}_mock_{next(self._ids):06d}"

    def admit(self, body: dict, headers: dict[str, str]) -> Admission | str:
        return self.rules.admit(body, headers, self.models)

    def next_answer(self, body: dict, fallback: Reply | None = None) -> tuple[Fault | None, Reply | None]:
        """The fault and/or reply for one /v1/messages request (`fallback`: the answer when nothing is
        scripted, before the responder).

        A reply streamed under a disconnect/stream_error fault stays queued, so
        the client's retry gets the same answer in full.
        """
        with self._lock:
            routed = self._routed(body)
            if routed is not None:
                entry = routed.popleft() if routed else None
                if isinstance(entry, Fault):
                    return entry, None
                if entry is not None:
                    return None, entry
            fault = self._faults.popleft() if self._faults else None
            if fault is None:
                fault = self._take(Fault)
            if fault is not None and fault.kind in ("status", "hang"):
                return fault, None
            reply = self._take(Reply)
            if reply is not None and fault is not None and fault.kind in INTERRUPTING:
                self._script.appendleft(reply)
        if reply is not None:
            return fault, reply
        if fallback is not None:
            return fault, fallback
        return fault, self._responder(body) if self._responder is not None else Reply([Text(UNSCRIPTED)])

    def _take(self, kind: type[_Entry]) -> _Entry | None:
        """The script's next entry if it is a `kind` (taken off the script), else None. Under the lock."""
        if self._script and isinstance(head := self._script[0], kind):
            self._script.popleft()
            return head
        return None

    def build_message(self, body: dict, reply: Reply, admission: Admission) -> dict:
        blocks: list[dict] = []
        for block in assign_tool_ids(reply, lambda: self.next_id("toolu")):
            blocks += searched(body, block, lambda: self.next_id("srvtoolu")) if isinstance(block, ToolSearch) \
                else [block_json(block)]
        check_reply(body, blocks)  # raises ScriptRefused: answered 400
        content, stop_reason = self.rules.content(admission, blocks)
        usage = usage_json(self.cache.observe(admission.counted), output_tokens(content), reply.usage)
        message_id = self.next_id("msg")
        message = message_json(message_id, reply.model or body["model"], content,
                               stop_reason or reply.effective_stop_reason, usage,
                               self.rules.fields(body, admission, message_id))
        with self._lock:
            self.answered.append((body, message))
        return message

    def register(self, conn: socket.socket, open_: bool) -> None:
        with self._lock:
            (self._connections.add if open_ else self._connections.discard)(conn)

    def wait(self, seconds: float) -> bool:
        """Sleep; True if the server is closing meanwhile."""
        return self._stopping.wait(seconds) if seconds > 0 else self._stopping.is_set()
