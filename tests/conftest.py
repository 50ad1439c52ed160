"""Fixtures shared by the agent and LSP suites: the local model server and a small workspace."""

from pathlib import Path

import pytest

from agentls.mock_api import MockAnthropicServer


@pytest.fixture(autouse=True)
def user_config_dir(tmp_path_factory, monkeypatch) -> Path:
    """The user's config folder (instructions, commands) of every test: empty and private, never the
    developer's own ~/.config/agentls (servers started by a test inherit the variable)."""
    folder = tmp_path_factory.mktemp("user-config")
    monkeypatch.setenv("AGENTLS_CONFIG_DIR", str(folder))
    return folder


@pytest.fixture
def mock_api():
    with MockAnthropicServer() as server:
        yield server


@pytest.fixture
def workspace(tmp_path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.md").write_text("# Notes\nThe answer is 42.\n")
    (root / "app.py").write_text("def main():\n    return 'hello'\n")
    return root
