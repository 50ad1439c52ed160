"""A bare JSON-RPC stdio client for the fuzz test: every byte the server writes is kept."""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any


class RawClient:
    def __init__(self) -> None:
        self.stdout = bytearray()
        self.stderr = bytearray()
        self.notifications: list[dict] = []
        self.server_requests: list[dict] = []
        self.unmatched: list[dict] = []  # responses with an id nobody waits for (e.g. null)
        self._pending: dict[Any, asyncio.Future] = {}
        self._ids = itertools.count(1)
        self._tasks: list[asyncio.Task] = []
        self.process: asyncio.subprocess.Process | None = None
        self.raw_results: dict[str, bytes] = {}  # method → the JSON of its result, sent as is (no encoding delay)

    async def start(self, *command: str, env: dict[str, str]) -> None:
        self.process = await asyncio.create_subprocess_exec(
            *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=env)
        self._tasks = [asyncio.ensure_future(self._read()), asyncio.ensure_future(self._drain_stderr())]

    def send_bytes(self, body: bytes) -> None:
        assert self.process and self.process.stdin
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def send(self, message: dict) -> None:
        self.send_bytes(json.dumps(message).encode())

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    async def request(self, method: str, params: Any = None, *, omit_params: bool = False,
                      timeout: float = 60.0) -> dict:
        msg_id = next(self._ids)
        future = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = future
        message = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if not omit_params:
            message["params"] = params
        self.send(message)
        return await asyncio.wait_for(future, timeout)

    async def _read(self) -> None:
        assert self.process and self.process.stdout
        reader = self.process.stdout
        while True:
            length = None
            while True:
                line = await reader.readline()
                if not line:
                    return
                self.stdout += line
                if not line.strip():
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            body = await reader.readexactly(length)
            self.stdout += body
            self._handle(json.loads(body))

    def _handle(self, message: dict) -> None:
        if "method" in message and "id" in message:
            self.server_requests.append(message)
            if message["method"] in self.raw_results:
                self.send_bytes(b'{"jsonrpc": "2.0", "id": %s, "result": %s}'
                                % (json.dumps(message["id"]).encode(), self.raw_results[message["method"]]))
                return
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": _answer(message["method"])})
        elif "method" in message:
            self.notifications.append(message)
        elif message.get("id") in self._pending:
            self._pending.pop(message["id"]).set_result(message)
        else:
            self.unmatched.append(message)

    async def _drain_stderr(self) -> None:
        assert self.process and self.process.stderr
        while chunk := await self.process.stderr.read(65536):
            self.stderr += chunk

    async def close(self) -> None:
        if self.process is None:
            return
        if self.process.returncode is None:
            try:
                await self.request("shutdown", None, timeout=10)
                self.notify("exit")
                await asyncio.wait_for(self.process.wait(), 10)
            except (asyncio.TimeoutError, ConnectionError):
                self.process.kill()
                await self.process.wait()
        for task in self._tasks:
            try:
                await asyncio.wait_for(task, 5)
            except (asyncio.TimeoutError, asyncio.IncompleteReadError):
                task.cancel()


def _answer(method: str) -> Any:
    return {
        "agent/confirm": {"approved": False},
        "workspace/applyEdit": {"applied": False, "failureReason": "fuzz"},
        "window/showMessageRequest": None,
        "workspace/configuration": [None],
    }.get(method)
