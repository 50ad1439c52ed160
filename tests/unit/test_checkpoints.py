"""The checkpoint core on real files: the snapshot walk, the blob store, crash-safe restore, the bench."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from agentls.evaluation.checkpoint_bench import format_figures, run as run_bench
from agentls.agent.checkpoints.blobs import BlobStore
from agentls.agent.checkpoints.restore import FAULT_ENV, JOURNAL, Put, recover, restore
from agentls.agent.checkpoints.snapshot import IGNORED, Snapshotter


def test_snapshot_respects_gitignore_skips_git_binary_and_large_files_and_rereads_only_changes(tmp_path):
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "src" / ".gitignore").write_text("!keep.log\n")
    (root / "src" / "a.py").write_text("a = 1\n")
    (root / "src" / "keep.log").write_text("kept by the nested .gitignore\n")
    (root / "debug.log").write_text("ignored\n")
    (root / "build").mkdir()
    (root / "build" / "out.txt").write_text("ignored folder\n")
    (root / "image.bin").write_bytes(b"\x89PNG\0\0data")
    (root / "big.txt").write_text("x" * 300)
    (root / "link").symlink_to(root / "src" / "a.py")
    snapshotter = Snapshotter([(str(root), "")], BlobStore(tmp_path / "blobs"), max_file_bytes=200)
    first = snapshotter.take()
    assert sorted(first.files) == [".gitignore", "big.txt", "build/", "debug.log", "image.bin", "link",
                                   "src/.gitignore", "src/a.py", "src/keep.log"]
    # ignored files and folders are named (a turn deleting them is told), never read
    assert {first.files[p].skipped for p in ("build/", "debug.log")} == {IGNORED}
    assert first.files["image.bin"].skipped == "binary" and first.files["image.bin"].hash is None
    assert first.files["big.txt"].skipped.startswith("too large (300 bytes")
    assert first.files["link"].skipped == "symlink"
    assert BlobStore(tmp_path / "blobs").get(first.files["src/a.py"].hash) == b"a = 1\n"

    (root / "src" / "a.py").write_text("a = 22\n")
    (root / "src" / "new.py").write_text("new\n")
    (root / "debug.log").write_text("still ignored\n")
    second = snapshotter.take()
    assert second.files["src/a.py"].hash != first.files["src/a.py"].hash
    assert "src/new.py" in second.files and second.files["debug.log"].hash is None
    assert second.files[".gitignore"] == first.files[".gitignore"]

    (root / "data" / "checkpoints").mkdir(parents=True)  # the data folder inside the workspace
    (root / "data" / "sessions.db").write_text("not part of any snapshot")
    excluding = Snapshotter([(str(root), "")], BlobStore(tmp_path / "blobs"), exclude=(str(root / "data"),))
    assert not [path for path in excluding.take().files if path.startswith("data/")]


def test_restore_puts_every_file_and_a_crash_in_prepare_or_commit_is_recovered(tmp_path):
    journal = tmp_path / "journal"
    files = [tmp_path / f"f{i}.txt" for i in range(5)]
    for i, path in enumerate(files):
        path.write_text(f"old {i}\n" * 1000)
    script = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from agentls.agent.checkpoints.restore import Put, restore
        files = [Path(p) for p in sys.argv[1:]]
        restore([Put(p, (f"new {{i}}\\n" * 1000).encode()) for i, p in enumerate(files)], Path({str(journal)!r}))
    """)
    for fault, expected in (("prepare:3", "old"), ("commit:2", "new")):
        for i, path in enumerate(files):
            path.write_text(f"old {i}\n" * 1000)
        done = subprocess.run([sys.executable, "-c", script, *map(str, files)],
                              env={**os.environ, FAULT_ENV: fault}, capture_output=True)
        assert done.returncode == 70, done.stderr
        assert (journal / JOURNAL).exists()
        states = {path.read_text() for path in files}
        assert all(text in ({f"old {i}\n" * 1000, f"new {i}\n" * 1000}) for i, text in
                   ((int(p.stem[1:]), p.read_text()) for p in files)), "a torn file"
        if fault.startswith("commit"):
            assert len(states) == 5 and any(t.startswith("new") for t in states) and any(t.startswith("old")
                                                                                        for t in states)
        assert recover(journal) is not None
        assert [p.read_text() for p in files] == [f"{expected} {i}\n" * 1000 for i in range(5)]
        assert not list(tmp_path.glob("*.agentls-restore-*")) and not (journal / JOURNAL).exists()

    restore([Put(files[0], None), Put(tmp_path / "sub" / "made.txt", b"made\n")], journal)
    assert not files[0].exists() and (tmp_path / "sub" / "made.txt").read_bytes() == b"made\n"


def test_the_checkpoint_bench_runs_and_prints_its_figures():
    figures = run_bench(files=300, runs=3)
    assert figures["files"] >= 300 and figures["checkpointMs"]["p50"] > 0 and figures["gitStatusMs"]["p50"] > 0
    text = format_figures(figures)
    assert "git status" in text and "ratio p50" in text


def test_bench_command_line_prints(tmp_path):
    done = subprocess.run([sys.executable, "-m", "agentls", "bench", "checkpoint", "--files", "200", "--runs", "2"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "checkpoint   p50" in done.stdout and "git status   p50" in done.stdout
    del tmp_path
