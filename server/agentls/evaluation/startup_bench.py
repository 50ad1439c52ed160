"""Start-up and resume of the language server, beside jedi-language-server in the same run (figures).

- spawn → `initialize` answered, for agentls and (when it is installed:
  `pip install jedi-language-server`, a bench extra, not a dependency)
  jedi-language-server, the same pygls stack doing the least a Python
  language server does; spawns alternate, so both see the same machine load;
- spawn → agent ready (the first agent/contextUsage: the session is loaded
  and the meter can be shown) on an empty workspace;
- the same for a workspace whose session holds a generated conversation of
  N messages (5,000 by default), resumed from its working view; and, once,
  the start that found no view yet and replayed every record.

Goals (issue 22): initialize ≤ 1.0× jedi's initialize, ready ≤ 1.5×, the
resume ≤ ready + 1.0× jedi's initialize. agentls's bytecode is compiled
first, as an installed package has it (an editable install under
PYTHONDONTWRITEBYTECODE would compile every module at every spawn).
"""

from __future__ import annotations

import asyncio
import compileall
import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from .. import __version__
from ..lsp.transport import raw_converter
from ..demo.brain import demo_reply
from ..mock_api import MockAnthropicServer
from .generated_session import generate_session

AGENTLS = [sys.executable, "-m", "agentls", "serve", "--stdio"]
JEDI = [sys.executable, "-c", "import sys; from jedi_language_server.cli import cli; sys.exit(cli())"]
READY_TIMEOUT = 300.0
RESUMED_AT_LEAST_PER_MESSAGE = 20  # tokens the meter shows per generated message once it is loaded


def jedi_installed() -> bool:
    return importlib.util.find_spec("jedi_language_server") is not None


def compile_agentls() -> None:
    import agentls

    compileall.compile_dir(str(Path(agentls.__file__).parent), quiet=1)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def _env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env["AGENTLS_DATA_DIR"] = str(data_dir)
    return env


async def _stop(client: LanguageClient) -> float:
    """Seconds from `shutdown` sent to the process gone (pygls' stop waits for it)."""
    asked = time.perf_counter()
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return time.perf_counter() - asked


async def spawn_jedi(root: Path) -> tuple[float, float]:
    """Seconds from spawn to jedi-language-server's initialize answer, and from shutdown to exit."""
    client = LanguageClient("agentls-bench", __version__)
    spawned = time.perf_counter()
    await client.start_io(*JEDI)
    await client.initialize_async(types.InitializeParams(
        process_id=os.getpid(), root_uri=root.as_uri(), capabilities=types.ClientCapabilities()))
    answered = time.perf_counter() - spawned
    client.initialized(types.InitializedParams())
    return answered, await _stop(client)


async def spawn_agentls(root: Path, data_dir: Path, mock: MockAnthropicServer,
                        *, chat: bool = False) -> tuple[float, float, int, float]:
    """(seconds to the initialize answer, seconds to the first agent/contextUsage, tokens it shows,
    seconds from shutdown to exit — after one turn with `chat`: the model SDK is loaded then)."""
    client = LanguageClient("agentls-bench", __version__, converter_factory=raw_converter)
    ready = asyncio.Event()
    seen: dict[str, Any] = {}

    @client.feature("agent/contextUsage")
    def context_usage(ls, params: Any) -> None:
        if "at" not in seen:
            seen["at"], seen["used"] = time.perf_counter(), params["used"]
        ready.set()

    client.feature(types.WINDOW_SHOW_MESSAGE)(lambda ls, params: None)
    client.feature("agent/event")(lambda ls, params: None)  # the turn's stream (with `chat`)
    spawned = time.perf_counter()
    await client.start_io(*AGENTLS, env=_env(data_dir))
    await client.initialize_async(types.InitializeParams(
        process_id=os.getpid(), root_uri=root.as_uri(), capabilities=types.ClientCapabilities(),
        initialization_options={"apiKey": "bench-key", "settings": {"baseUrl": mock.base_url}}))
    answered = time.perf_counter() - spawned
    client.initialized(types.InitializedParams())
    await asyncio.wait_for(ready.wait(), READY_TIMEOUT)
    if chat:  # the mock's demo reply answers an unscripted turn
        await client.protocol.send_request_async("agent/chat", {"prompt": "hello"})
    return answered, seen["at"] - spawned, seen["used"], await _stop(client)


async def bench_startup(spawns: int, resume_messages: int, with_jedi: bool | None = None) -> dict[str, Any]:
    with_jedi = jedi_installed() if with_jedi is None else with_jedi
    compile_agentls()
    with tempfile.TemporaryDirectory() as tmp, MockAnthropicServer(responder=demo_reply) as mock:
        empty, resumed = Path(tmp) / "ws", Path(tmp) / "resumed-ws"
        for root in (empty, resumed):
            root.mkdir()
            (root / "notes.md").write_text("# Notes\n")
        resume_data = Path(tmp) / "resume-data"
        generate_session(resumed, resume_data, resume_messages)
        _, first_resume, used, _ = await spawn_agentls(resumed, resume_data, mock)  # no view yet: it is written now
        if used < RESUMED_AT_LEAST_PER_MESSAGE * resume_messages:
            raise RuntimeError(f"the generated conversation was not resumed (the meter shows {used} tokens)")
        jedi: list[float] = []
        init: list[float] = []
        ready: list[float] = []
        resume: list[float] = []
        exits: list[float] = []
        jedi_exits: list[float] = []
        for i in range(spawns):
            if with_jedi:
                answered, gone = await spawn_jedi(empty)
                jedi.append(answered)
                jedi_exits.append(gone)
            answered, up, _, gone = await spawn_agentls(empty, Path(tmp) / f"data-{i}", mock, chat=True)
            init.append(answered)
            ready.append(up)
            exits.append(gone)
            _, back, used, _ = await spawn_agentls(resumed, resume_data, mock)
            if used < RESUMED_AT_LEAST_PER_MESSAGE * resume_messages:
                raise RuntimeError(f"the generated conversation was not resumed (the meter shows {used} tokens)")
            resume.append(back)

    def ms(values: list[float]) -> dict[str, float]:
        return {"p50": round(percentile(values, 0.5) * 1000, 1), "max": round(max(values) * 1000, 1)}

    figures: dict[str, Any] = {
        "spawns": spawns, "resumeMessages": resume_messages,
        "initializeMs": ms(init), "agentReadyMs": ms(ready), "resumeReadyMs": ms(resume),
        "firstResumeMs": round(first_resume * 1000, 1), "exitAfterTurnMs": ms(exits),
    }
    if jedi:
        jedi_p50 = percentile(jedi, 0.5)
        figures["jediInitializeMs"] = ms(jedi)
        figures["jediExitMs"] = ms(jedi_exits)
        figures["ratios"] = {
            "initialize": round(percentile(init, 0.5) / jedi_p50, 2),
            "ready": round(percentile(ready, 0.5) / jedi_p50, 2),
            # the resume's cost over an empty start, in jedi initializes (goal: resume <= ready + 1.0x)
            "resumeOverReady": round((percentile(resume, 0.5) - percentile(ready, 0.5)) / jedi_p50, 2),
        }
    return figures


def format_startup(figures: dict[str, Any]) -> str:
    init, ready, resume = figures["initializeMs"], figures["agentReadyMs"], figures["resumeReadyMs"]
    ratios = figures.get("ratios")
    jedi = figures.get("jediInitializeMs")
    lines = [f"spawn → initialize answered ({figures['spawns']} spawns each, alternating)"]
    if jedi:
        lines.append(f"  jedi-language-server   p50 {jedi['p50']:6.0f} ms   max {jedi['max']:6.0f} ms")
    lines.append(f"  agentls                p50 {init['p50']:6.0f} ms   max {init['max']:6.0f} ms"
                 + (f"   {ratios['initialize']:.2f}× jedi (goal ≤ 1.0×)" if ratios else ""))
    lines.append("spawn → agent ready (first agent/contextUsage), empty workspace")
    lines.append(f"  agentls                p50 {ready['p50']:6.0f} ms   max {ready['max']:6.0f} ms"
                 + (f"   {ratios['ready']:.2f}× jedi's initialize (goal ≤ 1.5×)" if ratios else ""))
    lines.append(f"spawn → agent ready, resuming a {figures['resumeMessages']:,}-message session")
    lines.append(f"  agentls                p50 {resume['p50']:6.0f} ms   max {resume['max']:6.0f} ms"
                 f"   = ready + {resume['p50'] - ready['p50']:.0f} ms"
                 + (f" = ready + {ratios['resumeOverReady']:.2f}× jedi's initialize (goal ≤ ready + 1.0×)"
                    if ratios else ""))
    lines.append(f"  the first start after it was stored (no working view yet: every record replayed, "
                 f"the view written): {figures['firstResumeMs']:.0f} ms")
    exits = figures["exitAfterTurnMs"]
    lines.append("shutdown sent → process gone (agentls after one turn: the model SDK loaded)")
    if jedi:
        lines.append(f"  jedi-language-server   p50 {figures['jediExitMs']['p50']:6.0f} ms   "
                     f"max {figures['jediExitMs']['max']:6.0f} ms")
    lines.append(f"  agentls                p50 {exits['p50']:6.0f} ms   max {exits['max']:6.0f} ms")
    if not jedi:
        lines.append("  (jedi-language-server is not installed: pip install jedi-language-server for the ratios)")
    return "\n".join(lines)
