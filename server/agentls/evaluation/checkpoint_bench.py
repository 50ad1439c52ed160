"""`agentls bench checkpoint`: taking a checkpoint on a generated 10,000-file workspace, against `git status`.

The workspace is a git repository (committed, mtimes set an hour back, as a
checkout that is not brand new), with a `.gitignore` and an ignored build
folder. Each run changes one file (appends a line: it is read, hashed and
stored), then times, in the same run, one checkpoint snapshot (what the
agent takes around a tool call, with the cache of the previous snapshot,
as in a session) and one `git status --porcelain` on the same tree. Figures
are printed, not asserted: the goal is p50 no more than 2× `git status`.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from ..agent.checkpoints.blobs import BlobStore
from ..agent.checkpoints.snapshot import Snapshotter

GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com", "GIT_COMMITTER_NAME": "bench",
           "GIT_COMMITTER_EMAIL": "bench@example.com", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, env={**os.environ, **GIT_ENV}, check=True, capture_output=True)


def generate(root: Path, files: int = 10_000, seed: int = 20) -> list[Path]:
    """`files` source files in folders of 50 (two levels), plus ignored build output; a git repo."""
    rng = random.Random(seed)
    paths = []
    for i in range(files):
        folder = root / f"pkg{i // 500:03d}" / f"mod{(i // 50) % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"file{i:05d}.py"
        path.write_text(f'"""Module {i}."""\n' + "".join(f"value_{j} = {rng.randint(0, 10**6)}\n"
                                                            for j in range(rng.randint(5, 80))))
        paths.append(path)
    (root / ".gitignore").write_text("build/\n*.pyc\n__pycache__/\n")
    build = root / "build"
    build.mkdir()
    for i in range(200):
        (build / f"out{i}.o").write_bytes(os.urandom(256))
    past = time.time() - 3600
    for walked, names, found in os.walk(root):
        for name in names + found:
            os.utime(os.path.join(walked, name), (past, past))
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "generated")
    return paths


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def run(files: int = 10_000, runs: int = 30) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="agentls-bench-checkpoint-") as temporary:
        root, store = Path(temporary) / "ws", Path(temporary) / "blobs"
        root.mkdir()
        paths = generate(root, files)
        subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, check=True)  # warm
        snapshotter = Snapshotter([(str(root), "")], BlobStore(store))
        started = time.perf_counter()
        first = snapshotter.take()
        cold = time.perf_counter() - started
        snapshotter.take()  # as in a session: the previous snapshot's cache is warm
        checkpoint, git = [], []
        for i in range(runs):
            with open(paths[(i * 7919) % len(paths)], "a") as file:
                file.write(f"changed_{i} = {i}\n")
            started = time.perf_counter()
            snapshot = snapshotter.take()
            checkpoint.append(time.perf_counter() - started)
            started = time.perf_counter()
            subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, check=True)
            git.append(time.perf_counter() - started)
        stored = sum(f.stat().st_size for f in store.rglob("*") if f.is_file())
        shutil.rmtree(root, ignore_errors=True)
    ms = lambda values, share: round(_percentile(values, share) * 1000, 2)  # noqa: E731
    return {"files": len(first.files), "runs": runs, "coldSnapshotS": round(cold, 3), "storedBytes": stored,
            "checkpointMs": {"p50": ms(checkpoint, 0.5), "p95": ms(checkpoint, 0.95)},
            "gitStatusMs": {"p50": ms(git, 0.5), "p95": ms(git, 0.95)},
            "ratioP50": round(statistics.median(checkpoint) / statistics.median(git), 2),
            "lastSnapshotFiles": len(snapshot.files)}


def format_figures(figures: dict[str, Any]) -> str:
    c, g = figures["checkpointMs"], figures["gitStatusMs"]
    return "\n".join([
        f"checkpoint bench: {figures['files']:,} files in a git repository, one file changed per run, "
        f"{figures['runs']} runs",
        f"  first snapshot (cold: reads and stores every file): {figures['coldSnapshotS']:.2f} s, "
        f"{figures['storedBytes'] / 1e6:.1f} MB stored (zlib)",
        f"  checkpoint   p50 {c['p50']:8.2f} ms   p95 {c['p95']:8.2f} ms",
        f"  git status   p50 {g['p50']:8.2f} ms   p95 {g['p95']:8.2f} ms",
        f"  ratio p50: {figures['ratioP50']:.2f}× git status (goal: at most 2×)",
    ])


def main(as_json: bool = False, files: int = 10_000, runs: int = 30) -> int:
    figures = run(files, runs)
    print(json.dumps(figures, indent=1) if as_json else format_figures(figures))
    return 0
