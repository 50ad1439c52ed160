"""The benchmarks still run (their figures are printed, not asserted)."""

from __future__ import annotations

from agentls.evaluation.lsp_bench import bench, format_figures
from agentls.evaluation.startup_bench import bench_startup, format_startup


async def test_bench_runs():
    figures = await bench(turns=3, spawns=1)
    assert figures["turns"] == 3 and figures["firstDeltaMs"]["p50"] > 0
    assert "p50" in format_figures(figures)


async def test_startup_bench_runs():
    # A small session, one spawn of each kind; jedi-language-server only when installed (a bench extra).
    figures = await bench_startup(spawns=1, resume_messages=40)
    assert figures["agentReadyMs"]["p50"] >= figures["initializeMs"]["p50"] > 0
    assert figures["resumeReadyMs"]["p50"] > 0 and figures["firstResumeMs"] > 0
    assert figures["exitAfterTurnMs"]["p50"] > 0
    assert "resuming a 40-message session" in format_startup(figures)
    assert "shutdown sent → process gone" in format_startup(figures)
