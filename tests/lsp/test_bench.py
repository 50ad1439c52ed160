"""The latency benchmark still runs (its figures are printed, not asserted)."""

from __future__ import annotations

from agentls.evaluation.lsp_bench import bench, format_figures


async def test_bench_runs():
    figures = await bench(turns=3, spawns=1)
    assert figures["turns"] == 3 and figures["firstDeltaMs"]["p50"] > 0
    assert "p50" in format_figures(figures)
