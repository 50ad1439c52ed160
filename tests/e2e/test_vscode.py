"""End to end in a real VS Code: code-server + the packaged .vsix + playwright-core.

Runs only with AGENTLS_E2E set (CI and `./run test` set it). It installs Node
24 and code-server into ~/.cache/agentls-e2e on first use
(client-vscode/scripts/setup-e2e.sh, ~4 minutes; later runs reuse the cache),
packages the extension and drives the workbench. Screenshots go to
test-output/e2e/agentls/ and test-output/e2e/stand-in-server/.

- with agentls: chat view, a prompt the offline demo model answers by reading
  a workspace file (streamed reply + tool card), Agent: Compact Conversation
  (the status bar percentage drops), Agent: Show Cost, Agent: Show Context; then
  client-vscode/test/e2e/steps-context.mjs (issue 9): the meter's percentage equals
  its fraction at every step, the compaction divider opens the summary, an expanded
  tool card shows a token from deep inside the output, a cleared result's original
  opens from its card, Show Context follows the conversation and survives a reload;
  then the editor tools in a TypeScript workspace (steps-editor.mjs): a scripted
  model calls find_symbols, find_references and an edit that breaks the types;
  then an MCP server added in the settings listed by Agent: Show MCP Servers and /mcp;
  then the endpoint's models (steps-models.mjs, issue 16): a mock endpoint whose Models API
  lists ids no table contains fills the picker, the status bar tooltip names the working
  window and the model's maximum, and its link raises agentls.contextWindow in one click.
  then "Always" in an approval writes a permission rule to agentls.permissions that /permissions
  lists, the same command then runs unasked, and once removed it asks again (steps-rules.mjs);
  then a model picked in the header between two prompts (steps-cache.mjs, issue 29): the endpoint's cache
  diagnostics say the model changed, and /cost in the chat and Show Context name that reason.
- with the stand-in server (client-vscode/test/e2e/fake_server.py): the same,
  plus approvals inside the panel (a command approved Always and an edit rejected
  with a reason, by keyboard; the native modal only with the panel hidden) and a
  server crash that is restarted and reported in the panel.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.xdist_group("client-vscode"),  # shares client-vscode/ with tests/browser: one worker runs them all
    pytest.mark.timeout(1800),
    pytest.mark.skipif(not os.environ.get("AGENTLS_E2E"),
                       reason="set AGENTLS_E2E=1 to run the code-server end-to-end tests "
                              "(installs Node 24 + code-server into ~/.cache/agentls-e2e on first use)"),
]

REPO = Path(__file__).resolve().parents[2]
EXT = REPO / "client-vscode"
NPM = shutil.which("npm")
CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")
PYTHON = os.environ.get("AGENTLS_E2E_PYTHON", str(REPO / ".venv" / "bin" / "python"))


def _run(args: list[str], timeout: int, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, cwd=EXT, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "NO_COLOR": "1", **(env or {})})
    if proc.returncode != 0:
        output = (proc.stdout + "\n" + proc.stderr)[-15000:]
        pytest.fail(f"`{' '.join(args)}` failed with exit code {proc.returncode}:\n{output}", pytrace=False)
    return proc


@pytest.fixture(scope="module")
def vscode_ready() -> None:
    if not NPM:
        pytest.skip("node/npm not found")
    if not CHROMIUM:
        pytest.skip("chromium not found (apt-get install -y chromium)")
    _run(["bash", "scripts/setup-e2e.sh"], timeout=1200)
    if not (EXT / "node_modules" / ".package-lock.json").exists():
        _run([NPM, "ci", "--no-audit", "--no-fund"], timeout=600)
    if not os.environ.get("AGENTLS_VSIX") and not _vsix_is_fresh():
        _run([NPM, "run", "--silent", "package"], timeout=600)


def _vsix_is_fresh() -> bool:
    """The .vsix is newer than every source it is built from (e.g. test_vsix_package just built it)."""
    vsix = EXT / "dist" / "agentls.vsix"
    if not vsix.exists():
        return False
    built = vsix.stat().st_mtime
    sources = [EXT / "package.json", EXT / "package-lock.json", REPO / "pyproject.toml"]
    for folder in (EXT / "src", EXT / "webview", EXT / "media", REPO / "server" / "agentls"):
        sources += [p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    return all(p.stat().st_mtime <= built for p in sources if p.exists())


def _e2e(env: dict[str, str]) -> str:
    proc = _run(["node", "test/e2e/run.mjs"], timeout=600, env={"AGENTLS_E2E_PYTHON": PYTHON, **env})
    print(proc.stdout)
    assert proc.stdout.rstrip().endswith("ok"), proc.stdout[-3000:]
    return proc.stdout


def test_vscode_with_stand_in_server(vscode_ready: None) -> None:
    out = _e2e({"AGENTLS_E2E_FAKE": "1"})
    assert "approvals: in the panel for shell" in out
    assert "crash: restarted and the panel said so" in out


def test_vscode_with_agentls(vscode_ready: None) -> None:
    # The server is part of this repository: a server that does not start is a failure,
    # never a reason to run fewer steps.
    out = _e2e({"AGENTLS_E2E_REQUIRE_SERVER": "1"})
    assert "all steps passed" in out
    assert "editor tools: symbols found the class" in out  # steps-editor.mjs, in a TypeScript workspace
    assert "Always: run_shell(ls -la) written to agentls.permissions.allow" in out  # steps-rules.mjs (issue 21)
    assert "the rule removed from the settings: the command asks again" in out
    assert "cache miss named: model changed (model_changed), in /cost and Show Context" in out  # steps-cache.mjs
