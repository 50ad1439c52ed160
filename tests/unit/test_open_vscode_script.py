"""`./run` opens VS Code with state kept per checkout: two clones never share a venv."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "client-vscode" / "scripts" / "open-vscode.sh"


def _checkout(parent: Path, name: str) -> Path:
    root = parent / name
    (root / "client-vscode" / "scripts").mkdir(parents=True)
    shutil.copy(SCRIPT, root / "client-vscode" / "scripts" / "open-vscode.sh")
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / ".venv" / "bin" / "python").write_text("#!/bin/sh\n")
    return root


def _open(root: Path, **env: str) -> str:
    proc = subprocess.run(["bash", str(root / "client-vscode" / "scripts" / "open-vscode.sh")],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "AGENTLS_OPEN_DRY_RUN": "1", **env})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _settings(root: Path) -> dict:
    return json.loads((root / ".vscode-server" / "user-data" / "User" / "settings.json").read_text())


def test_two_checkouts_each_use_their_own_venv(tmp_path: Path) -> None:
    first, second = _checkout(tmp_path, "first"), _checkout(tmp_path, "second")
    _open(first)
    out = _open(second)
    assert _settings(first)["agentls.pythonPath"] == str(first / ".venv" / "bin" / "python")
    assert _settings(second)["agentls.pythonPath"] == str(second / ".venv" / "bin" / "python")
    assert f"?folder={second}" in out and "http://127.0.0.1:" in out


def test_a_moved_checkout_is_repointed_and_user_settings_are_kept(tmp_path: Path) -> None:
    root = _checkout(tmp_path, "before")
    _open(root)
    settings = _settings(root)
    settings["editor.fontSize"] = 17
    settings["agentls.pythonPath"] = "/somewhere/else/python"
    (root / ".vscode-server" / "user-data" / "User" / "settings.json").write_text(json.dumps(settings))
    moved = root.rename(tmp_path / "after")
    _open(moved)
    assert _settings(moved)["agentls.pythonPath"] == str(moved / ".venv" / "bin" / "python")
    assert _settings(moved)["editor.fontSize"] == 17
    assert _settings(moved)["workbench.secondarySideBar.defaultVisibility"] == "hidden"


def test_the_port_can_be_chosen(tmp_path: Path) -> None:
    root = _checkout(tmp_path, "ws")
    assert "http://127.0.0.1:9321/" in _open(root, AGENTLS_PORT="9321")
