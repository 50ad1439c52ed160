"""Latency and start-up benchmark of the LSP path (figures, not a test):

    python -m agentls.evaluation.lsp_bench [--turns 60] [--spawns 5] [--messages 5000] [--json]

- first-delta latency: from the moment the model server has written a turn's
  first text delta (the mock API is instrumented to timestamp it) to the
  moment the client has read the matching `agent/event` textDelta, through the
  real server process and the real SDK; p50/p95 over the turns;
- start-up (startup_bench.py): spawn → initialize answered and → agent ready,
  beside jedi-language-server when it is installed, and the resume of a
  generated session of --messages messages.

The mock runs in this process, so both timestamps come from one clock. It
streams a delta every 10 ms (real models are slower), which also keeps its
thread from holding the GIL while the client reads.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from .. import __version__
from ..mock_api import MockAnthropicServer, Reply, Text
from ..lsp.transport import raw_converter
from .startup_bench import bench_startup, format_startup

CHUNK_DELAY = 0.010
WARM_UP_TURNS = 2  # the first turns also open the HTTP connection and build the SDK client


class TimedMock(MockAnthropicServer):
    """The mock API, noting when the first text delta of each answer left it."""

    def __init__(self) -> None:
        super().__init__()
        self.first_deltas: list[float] = []
        self.on_first_text_delta = lambda: self.first_deltas.append(time.perf_counter())


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def _env(data_dir: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env["AGENTLS_DATA_DIR"] = data_dir
    return env


async def _start(root: Path, mock: MockAnthropicServer, data_dir: str) -> tuple[LanguageClient, dict[str, float]]:
    client = LanguageClient("agentls-bench", __version__, converter_factory=raw_converter)
    times: dict[str, float] = {}
    ready = asyncio.Event()

    @client.feature("agent/contextUsage")
    def context_usage(ls, params: Any) -> None:
        times.setdefault("ready", time.perf_counter())
        ready.set()

    client.feature(types.WINDOW_SHOW_MESSAGE)(lambda ls, params: None)
    spawned = time.perf_counter()
    await client.start_io(sys.executable, "-m", "agentls", "serve", "--stdio", env=_env(data_dir))
    await client.initialize_async(types.InitializeParams(
        process_id=os.getpid(), root_uri=root.as_uri(), capabilities=types.ClientCapabilities(),
        initialization_options={"apiKey": "bench-key", "settings": {"baseUrl": mock.base_url}}))
    times["initialize"] = time.perf_counter() - spawned
    client.initialized(types.InitializedParams())
    await asyncio.wait_for(ready.wait(), 60)
    times["ready"] -= spawned
    return client, times


async def _stop(client: LanguageClient) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


async def bench(turns: int, spawns: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        root.mkdir()
        (root / "notes.md").write_text("# Notes\n")
        mock = TimedMock()
        mock.start()
        try:
            init, ready = [], []
            for i in range(spawns):
                client, times = await _start(root, mock, f"{tmp}/data-{i}")
                init.append(times["initialize"])
                ready.append(times["ready"])
                if i < spawns - 1:
                    await _stop(client)

            first_seen: dict[str, float] = {}

            @client.feature("agent/event")
            def event(ls, params: Any) -> None:
                if params.get("kind") == "textDelta":
                    first_seen.setdefault(params["turnId"], time.perf_counter())

            latencies = []
            for _ in range(turns + WARM_UP_TURNS):
                mock.script(Reply([Text("The quick brown fox jumps over the lazy dog. " * 4)],
                                  chunk_delay=CHUNK_DELAY))
                sent = len(mock.first_deltas)
                result = await client.protocol.send_request_async("agent/chat", {"prompt": "say something"})
                latencies.append(first_seen[result["turnId"]] - mock.first_deltas[sent])
            await _stop(client)
        finally:
            mock.close()
    steady = latencies[WARM_UP_TURNS:]
    ms = [x * 1000 for x in steady]
    return {
        "turns": len(steady),
        "firstDeltaMs": {"p50": round(percentile(ms, 0.5), 2), "p95": round(percentile(ms, 0.95), 2),
                         "max": round(max(ms), 2), "mean": round(statistics.fmean(ms), 2)},
        "firstDeltaWarmUpMs": [round(x * 1000, 2) for x in latencies[:WARM_UP_TURNS]],
        "spawns": spawns,
        "initializeMs": {"p50": round(percentile(init, 0.5) * 1000, 1), "max": round(max(init) * 1000, 1)},
        "agentReadyMs": {"p50": round(percentile(ready, 0.5) * 1000, 1), "max": round(max(ready) * 1000, 1)},
    }


def format_figures(figures: dict[str, Any], with_spawns: bool = True) -> str:
    delta, init, ready = figures["firstDeltaMs"], figures["initializeMs"], figures["agentReadyMs"]
    lines = [
        f"first textDelta after the model's first SSE delta ({figures['turns']} turns, "
        f"{WARM_UP_TURNS} warm-up excluded: {figures['firstDeltaWarmUpMs']} ms)",
        f"  p50 {delta['p50']:.2f} ms   p95 {delta['p95']:.2f} ms   max {delta['max']:.2f} ms",
    ]
    if with_spawns:
        lines += [
            f"spawn → initialize response ({figures['spawns']} spawns)   p50 {init['p50']:.0f} ms   "
            f"max {init['max']:.0f} ms",
            f"spawn → first agent/contextUsage (agent ready)   p50 {ready['p50']:.0f} ms   max {ready['max']:.0f} ms",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agentls.evaluation.lsp_bench",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=60, help="measured chat turns (default 60)")
    parser.add_argument("--spawns", type=int, default=5, help="server starts to time, of each kind (default 5)")
    parser.add_argument("--messages", type=int, default=5000, help="messages of the resumed session (default 5000)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    latency = asyncio.run(bench(max(1, args.turns), 1))
    startup = asyncio.run(bench_startup(max(1, args.spawns), max(4, args.messages)))
    if args.json:
        print(json.dumps({"latency": latency, "startup": startup}, indent=1))
    else:
        print(format_figures(latency, with_spawns=False))
        print(format_startup(startup))
    return 0


if __name__ == "__main__":
    sys.exit(main())
