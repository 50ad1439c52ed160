"""The repository holds only the project's own files: no environment, no link out of the checkout.

A committed `.venv` symlink (a `.venv/` ignore rule does not match a symlink) once made every fresh
clone run its language servers from another checkout's environment and code.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LOCAL_ONLY = {".venv", "node_modules", "test-output", ".hypothesis", "__pycache__", ".mypy_cache"}


def tracked() -> list[tuple[str, str]]:
    """(mode, path) of every tracked file."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    out = subprocess.run(["git", "ls-files", "-s", "-z"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    rows = []
    for entry in filter(None, out.split("\0")):
        meta, path = entry.split("\t", 1)
        rows.append((meta.split()[0], path))
    return rows


def test_no_local_environment_or_build_output_is_tracked():
    stray = [path for _, path in tracked() if LOCAL_ONLY & set(Path(path).parts)]
    assert stray == []


def test_every_tracked_symlink_stays_inside_the_checkout():
    for mode, path in tracked():
        if mode != "120000":
            continue
        target = (REPO / path).parent / Path((REPO / path).readlink())
        assert target.resolve().is_relative_to(REPO), f"{path} links out of the checkout"
