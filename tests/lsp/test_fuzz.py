"""1,200 generated malformed (and some valid) agent/* requests against the real server.

Every request gets exactly one answer: a result of the promised shape or a
JSON-RPC error with a known code. The server keeps answering afterwards, and
the API key never appears in anything it writes (stdout or stderr).
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest

from .helpers import SECRET, server_command, server_env
from .rawclient import RawClient

pytestmark = pytest.mark.slow

CASES = 1_200
SEED = 20240917
KNOWN_ERRORS = {-32602, -32002, -32603, -32800}
RESULT_KEYS = {
    "agent/chat": {"turnId", "text", "stopReason", "usage"},
    "agent/compact": {"tokensBefore", "tokensAfter", "summary"},
    "agent/cost": {"model", "requests", "inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens",
                   "cacheWrite1hTokens", "cacheTtl", "usd", "unpricedModels", "subagents"},
    "agent/clear": set(),
    "agent/context": {"window", "effectiveWindow", "used", "utilization", "level", "categories", "layers",
                      "placeholders", "model", "demo", "modelWindow"},
}
NASTY_KEYS = ["prompt", "instructions", "attachments", "uri", "text", "range", "start", "end", "line", "character",
              "workDoneToken", "type_name", "jsonrpc", "method", "id", "params", "__proto__", "", "1abc", "class",
              "a b", "ключ", "\u0000"]
NASTY_STRINGS = ["", " ", "\n", "x", "notes.md", "../../etc/passwd", "file:///etc/passwd", "~/.ssh/id_rsa",
                 "\ud800", "😀" * 50, "a" * 5000, "%2e%2e/%2e%2e", "context://toolu_x", "null", "\u0000nul",
                 "list the files", "search for answer"]


class Generator:
    def __init__(self, seed: int, root: Path) -> None:
        self.rng = random.Random(seed)
        self.root = root

    def value(self, depth: int = 0) -> Any:
        r = self.rng.random()
        if depth > 3 or r < 0.45:
            return self.scalar()
        if r < 0.7:
            return [self.value(depth + 1) for _ in range(self.rng.randint(0, 4))]
        return {self.rng.choice(NASTY_KEYS): self.value(depth + 1) for _ in range(self.rng.randint(0, 4))}

    def scalar(self) -> Any:
        return self.rng.choice([
            None, True, False, 0, -1, 1, 2**31, -(2**63), 10**30, 0.5, -1e308, float("inf"),
            self.rng.choice(NASTY_STRINGS), self.rng.randint(-5, 5), "".join(chr(self.rng.randint(1, 0x2FFF))
                                                                         for _ in range(self.rng.randint(0, 20))),
        ])

    def position(self) -> Any:
        if self.rng.random() < 0.7:
            return {"line": self.rng.choice([0, 1, -1, 2**40, "1", None]),
                    "character": self.rng.choice([0, 3, -2, 1.5, None])}
        return self.value()

    def attachment(self) -> Any:
        if self.rng.random() < 0.2:
            return self.value()
        item: dict[str, Any] = {}
        if self.rng.random() < 0.9:
            item["uri"] = self.rng.choice([(self.root / "notes.md").as_uri(), (self.root / "missing.txt").as_uri(),
                                           "file:///etc/passwd", "untitled:1", "", 7, None,
                                           (self.root / "..").as_uri()])
        if self.rng.random() < 0.5:
            item["text"] = self.rng.choice(["some text", 1, None, ["x"]])
        if self.rng.random() < 0.4:
            item["range"] = {"start": self.position(), "end": self.position()} if self.rng.random() < 0.8 \
                else self.value()
        return item

    def chat(self) -> Any:
        if self.rng.random() < 0.15:
            return self.value()
        params: dict[str, Any] = {}
        if self.rng.random() < 0.85:
            params["prompt"] = self.scalar() if self.rng.random() < 0.6 else self.value()
        if self.rng.random() < 0.4:
            params["attachments"] = [self.attachment() for _ in range(self.rng.randint(0, 3))] \
                if self.rng.random() < 0.8 else self.value()
        if self.rng.random() < 0.3:
            params["workDoneToken"] = self.scalar()
        if self.rng.random() < 0.2:
            params[self.rng.choice(NASTY_KEYS)] = self.value()
        return params

    def case(self) -> tuple[str, Any]:
        method = self.rng.choices(list(RESULT_KEYS), weights=[50, 12, 13, 10, 15])[0]
        if method == "agent/chat":
            return method, self.chat()
        if method == "agent/compact" and self.rng.random() < 0.7:
            return method, {"instructions": self.scalar()}
        return method, self.value()


def check_answer(method: str, params: Any, answer: dict) -> None:
    assert ("result" in answer) != ("error" in answer), answer
    if "error" in answer:
        assert answer["error"]["code"] in KNOWN_ERRORS, (method, params, answer)
        assert isinstance(answer["error"]["message"], str) and answer["error"]["message"]
        assert "data" not in answer["error"] or "traceback" not in json.dumps(answer["error"]["data"])
    else:
        assert isinstance(answer["result"], dict) and set(answer["result"]) >= RESULT_KEYS[method], (method, answer)


async def test_fuzzed_params_are_all_answered_and_never_leak_the_key(mock_api, workspace, data_dir):
    client = RawClient()
    await client.start(*server_command(), env=server_env(data_dir))
    try:
        init = await client.request("initialize", {
            "processId": None, "rootUri": workspace.as_uri(), "capabilities": {"window": {"showMessage": {}}},
            "initializationOptions": {"apiKey": SECRET, "supportsConfirm": True,
                                      "settings": {"baseUrl": mock_api.base_url}}})
        assert "result" in init
        client.notify("initialized", {})

        generator = Generator(SEED, workspace)
        cases = [generator.case() for _ in range(CASES)]
        answered = 0
        for start in range(0, CASES, 25):  # batches in flight at once: some chats meet a running turn
            batch = cases[start:start + 25]
            answers = await asyncio.gather(*(client.request(m, p, timeout=120) for m, p in batch))
            for (method, params), answer in zip(batch, answers):
                check_answer(method, params, answer)
                answered += 1
        assert answered == CASES

        # Broken envelopes are answered too.
        client.send_bytes(b"{not json")
        client.send({"jsonrpc": "1.0", "id": 99_999, "method": "agent/cost"})
        client.send({"jsonrpc": "2.0", "id": {"x": 1}, "method": "agent/cost"})
        client.send({"jsonrpc": "2.0", "id": 99_998, "method": 5})
        client.send({"jsonrpc": "2.0", "id": 99_997, "method": "agent/chat",
                     "params": {"prompt": {"jsonrpc": "2.0", "method": "exit", "type_name": "1 x"}}})
        no_such = await client.request("agent/nothing", {})
        assert no_such["error"]["code"] == -32601

        cost = await client.request("agent/cost")
        assert set(cost["result"]) == RESULT_KEYS["agent/cost"]
        mock_api.script("still answering")
        chat = await client.request("agent/chat", {"prompt": "are you there?"})
        assert chat["result"]["text"] == "still answering"
        codes = sorted(m["error"]["code"] for m in client.unmatched if "error" in m)
        assert codes.count(-32700) == 1 and codes.count(-32600) >= 3
    finally:
        await client.close()
    assert SECRET.encode() not in client.stdout
    assert SECRET.encode() not in client.stderr
    assert client.process is not None and client.process.returncode == 0
