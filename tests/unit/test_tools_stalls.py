"""Issue 8, points 4 and 6: no pattern and no special file can stall a tool or the event loop.

A catastrophic regex (`(a+)+$` over a line that almost matches) made Python's
`re` hold the GIL for tens of seconds; a FIFO made read_file / grep_search
block a worker thread forever. The heartbeat below measures the longest gap
the event loop went without running while the tool worked.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path

import pytest

from agentls.agent.approval import deny_all
from agentls.agent.tools import ToolContext, run_tool
from agentls.agent.workspace import Workspace

# They measure how long things take: one at a time under pytest-xdist (./run test), never side by side.
pytestmark = pytest.mark.xdist_group("timing")

EVIL_LINE = "a" * 30 + "!"


class Heartbeat:
    """The longest stretch the event loop could not run a 10 ms timer."""

    def __init__(self) -> None:
        self.longest = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _beat(self) -> None:
        last = time.monotonic()
        while True:
            await asyncio.sleep(0.01)
            now = time.monotonic()
            self.longest = max(self.longest, now - last)
            last = now

    async def __aenter__(self) -> Heartbeat:
        self._task = asyncio.create_task(self._beat())
        await asyncio.sleep(0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()


def _ctx(root: Path, **kw) -> ToolContext:
    return ToolContext(Workspace([root]), deny_all, **kw)


async def test_catastrophic_regex_neither_stalls_the_loop_nor_the_search(tmp_path: Path) -> None:
    (tmp_path / "min.js").write_text(f"{EVIL_LINE}\n" * 3 + "aaaa\n")
    async with Heartbeat() as heart:
        started = time.monotonic()
        out = await asyncio.wait_for(run_tool("grep_search", {"pattern": "(a+)+$"}, _ctx(tmp_path)), 30)
        took = time.monotonic() - started
    print(f"\n(a+)+$ over {len(EVIL_LINE)}-char lines: {took * 1000:.1f} ms, longest loop stall "
          f"{heart.longest * 1000:.1f} ms")
    assert out.text == "min.js:4: aaaa"
    assert took < 10 and heart.longest < 1.0  # before: one line alone held the GIL for ~50 s


async def test_constructs_without_a_linear_time_match_are_refused_clearly(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("abab\n")
    for pattern in (r"(ab)\1", r"a(?=b)", r"(?<!x)a"):
        out = await run_tool("grep_search", {"pattern": pattern}, _ctx(tmp_path))
        assert out.is_error and "not supported" in out.text and "backreferences" in out.text, out.text


async def test_grep_keeps_python_semantics_for_usual_patterns(tmp_path: Path) -> None:
    (tmp_path / "crlf.txt").write_bytes(b"first end\r\nsecond\r\nthird end\rfourth\n\n")
    (tmp_path / "u.txt").write_text("caf\u00e9 ol\u00e9\n")
    ctx = _ctx(tmp_path)
    ends = await run_tool("grep_search", {"pattern": "end$"}, ctx)
    assert ends.text.splitlines() == ["crlf.txt:1: first end", "crlf.txt:3: third end"]
    empty = await run_tool("grep_search", {"pattern": "^$", "path": "crlf.txt"}, ctx)
    assert empty.text == "crlf.txt:5: "
    across = await run_tool("grep_search", {"pattern": r"end\s+second"}, ctx)
    assert across.text.startswith("No matches")  # line by line, as before
    accents = await run_tool("grep_search", {"pattern": "(?i)CAF\u00c9"}, ctx)
    assert accents.text == "u.txt:1: caf\u00e9 ol\u00e9"


async def test_time_budget_of_the_whole_search_is_reported(tmp_path: Path) -> None:
    for n in range(3):
        (tmp_path / f"f{n}.txt").write_text("x\n" * 50_000)
    out = await run_tool("grep_search", {"pattern": "x"}, _ctx(tmp_path, grep_total_seconds=0.0))
    assert not out.is_error
    assert "time budget" in out.text


async def test_stop_ends_the_search_thread(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("match me\n" * 400_000)
    task = asyncio.ensure_future(run_tool("grep_search", {"pattern": "match"}, _ctx(tmp_path)))
    await asyncio.sleep(0.05)
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 1


@pytest.mark.parametrize("tool,args", [
    ("read_file", {"path": "pipe"}),
    ("grep_search", {"pattern": "x", "path": "pipe"}),
    ("grep_search", {"pattern": "x"}),
    ("write_file", {"path": "pipe", "content": "x"}),
    ("edit_file", {"path": "pipe", "old_text": "a", "new_text": "b"}),
])
async def test_a_fifo_is_refused_before_it_is_opened(tmp_path: Path, tool: str, args: dict) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "x.txt").write_text("x\n")
    workers_before = threading.active_count()
    for _ in range(8):  # more than the default executor's workers on a small machine
        out = await asyncio.wait_for(run_tool(tool, args, _ctx(tmp_path)), 5)
    if args.get("path") == "pipe":
        assert out.is_error and "not a regular file" in out.text, out.text
    else:
        assert out.text == "x.txt:1: x"
    # Nothing left blocked: a plain read still gets a worker at once.
    ok = await asyncio.wait_for(run_tool("read_file", {"path": "x.txt"}, _ctx(tmp_path)), 5)
    assert not ok.is_error
    assert threading.active_count() <= workers_before + 8
