"""Fixtures shared by the agent and LSP suites: the local model server and a small workspace."""

import compileall
import sys
from pathlib import Path

import pytest

from agentls.demo.brain import demo_reply
from agentls.mock_api import MockAnthropicServer
import forkserver
from slow_tests import SLOW_MODULES, listed_slow_tests

SERVER = Path(__file__).resolve().parents[1] / "server" / "agentls"


def pytest_configure(config):
    # Hundreds of tests start `python -m agentls`. Compile its bytecode once, as an installed package has it:
    # an editable install under PYTHONDONTWRITEBYTECODE would compile every module in every server process.
    if not hasattr(config, "workerinput"):  # once: in the xdist controller, or a run without workers
        compileall.compile_dir(str(SERVER), quiet=1)
    # Where tests run (each xdist worker, or this process without workers): a fork server for the
    # `agentls` processes they start (tests/forkserver.py).
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        forkserver.start_for_this_process()


def pytest_unconfigure(config):
    forkserver.stop()


@pytest.fixture(autouse=True)
def user_config_dir(tmp_path_factory, monkeypatch) -> Path:
    """The user's config folder (instructions, commands) of every test: empty and private, never the
    developer's own ~/.config/agentls (servers started by a test inherit the variable)."""
    folder = tmp_path_factory.mktemp("user-config")
    monkeypatch.setenv("AGENTLS_CONFIG_DIR", str(folder))
    return folder


@pytest.fixture
def mock_api():
    with MockAnthropicServer(responder=demo_reply) as server:
        yield server


@pytest.fixture
def workspace(tmp_path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.md").write_text("# Notes\nThe answer is 42.\n")
    (root / "app.py").write_text("def main():\n    return 'hello'\n")
    return root


TESTS = Path(__file__).resolve().parent


def pytest_make_parametrize_id(config, val, argname):
    # Generated test data (images with random padding, long texts) gets an id from its type and length:
    # the same in every pytest-xdist worker, which must collect identical test ids.
    if isinstance(val, bytes) or (isinstance(val, str) and len(val) > 40):
        return f"{argname}-{type(val).__name__}-{len(val)}"
    return None


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(config, items):
    slow = listed_slow_tests()
    for item in items:
        # an xdist group adds "@group" to the id under --dist loadgroup
        if item.path.relative_to(TESTS).as_posix() in SLOW_MODULES or item.nodeid.split("@")[0] in slow:
            item.add_marker(pytest.mark.slow)
    # The long tests first: under pytest-xdist (./run test) they run while the short ones fill the other
    # workers, instead of one worker finishing a long test alone at the end. (The sort is stable.)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_collection_finish(session):
    # A pytest-xdist worker under --dist loadgroup marks each grouped test's id with "@group". Without it
    # the groups are silently spread over workers (pytest-xdist#1386) and tests that share a folder
    # (client-vscode/: the webview build, the .vsix, the e2e) race: refuse to run rather than flake.
    if getattr(session.config.option, "loadgroup", False):
        lost = [item.nodeid for item in session.items
                if item.get_closest_marker("xdist_group") is not None and "@" not in item.nodeid]
        if lost:
            message = (f"pytest-xdist is not grouping --dist loadgroup tests ({lost[0]} has no @group): "
                       "see the pytest pin in pyproject.toml")
            sys.stderr.write(message + "\n")  # a worker's exception reaches the controller only as a crash
            raise pytest.UsageError(message)
