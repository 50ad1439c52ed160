"""ruff and mypy over the tree, as configured in pyproject.toml, so `./run test` keeps it clean.

Both come with the `test` extras; the tests skip only where they are not
installed. The extension's TypeScript is checked strictly by `tsc --noEmit`,
the first step of `npm run test:unit` (tests/browser/test_webview.py).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.lint

ROOT = Path(__file__).resolve().parents[2]


def run(tool: str, *args: str) -> None:
    if importlib.util.find_spec(tool) is None:
        pytest.skip(f"{tool} is not installed (pip install -e '.[test]')")
    done = subprocess.run([sys.executable, "-m", tool, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=540)
    if done.returncode != 0:
        pytest.fail(f"`{tool} {' '.join(args)}` found problems:\n{done.stdout}{done.stderr}", pytrace=False)


def test_ruff_is_clean():
    run("ruff", "check", "--no-cache", "server", "tests")


@pytest.mark.timeout(600)  # a first run, without .mypy_cache, takes a minute or two on a loaded machine
def test_mypy_is_clean():
    run("mypy")  # files and strictness from [tool.mypy] in pyproject.toml
