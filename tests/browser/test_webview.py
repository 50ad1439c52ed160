"""The VS Code extension's own tests, run from pytest.

- unit tests of the extension logic (node:test, `vscode` faked)
- the chat webview in headless Chromium (playwright-core + Debian chromium)
- `vsce package` produces a sane .vsix with the agentls wheel inside

They skip only when node/npm or chromium are missing; CI has both.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

# One client-vscode/ checkout (node_modules, dist/, test-output/) for these and the e2e: one worker runs them all.
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("client-vscode")]

EXT = Path(__file__).resolve().parents[2] / "client-vscode"
NPM = shutil.which("npm")
NODE = shutil.which("node")
CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")


def _run(args: list[str], timeout: int) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, cwd=EXT, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "FORCE_COLOR": "0", "NO_COLOR": "1"})
    if proc.returncode != 0:
        output = (proc.stdout + "\n" + proc.stderr)[-12000:]
        pytest.fail(f"`{' '.join(args)}` failed with exit code {proc.returncode}:\n{output}", pytrace=False)
    return proc


@pytest.fixture(scope="session")
def node_modules() -> Path:
    if not (NODE and NPM):
        pytest.skip("node/npm not found (install Node 20+)")
    if not (EXT / "node_modules" / ".package-lock.json").exists():
        _run([NPM, "ci", "--no-audit", "--no-fund"], timeout=600)
    return EXT / "node_modules"


def test_extension_unit(node_modules: Path) -> None:
    proc = _run([NPM, "run", "--silent", "test:unit"], timeout=300)
    assert "fail 0" in proc.stdout


@pytest.mark.timeout(900)
def test_webview_in_chromium(node_modules: Path) -> None:
    if not CHROMIUM:
        pytest.skip("chromium not found (apt-get install -y chromium)")
    proc = _run([NPM, "run", "--silent", "test:webview"], timeout=600)
    assert "fail 0" in proc.stdout


@pytest.mark.timeout(900)
def test_vsix_package(node_modules: Path) -> None:
    _run([NPM, "run", "--silent", "package"], timeout=600)
    proc = _run([NPM, "run", "--silent", "test:package"], timeout=120)
    assert "fail 0" in proc.stdout
