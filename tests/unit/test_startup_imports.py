"""Issue 22, point 1: nothing heavy is imported on the way to the `initialize` answer.

Each check runs in a fresh interpreter (this process has imported everything
already). Importing the server module loads neither SDK, nor re2, nor the
store (sqlite3) and the ignore-file matcher (pathspec): they load with the
agent, after initialize is answered. The agent itself (what its readiness,
the first agent/context answer, waits for) needs neither SDK: the anthropic
SDK loads in the background or at the first model call, the mcp SDK when a
server is started.
"""

from __future__ import annotations

import json
import subprocess
import sys

SDKS = ("anthropic", "mcp", "acp")  # the model's, MCP's and the Agent Client Protocol's
# and what the agent's newer parts use: the shell-command parser of the permission rules (tree-sitter)
BEFORE_INITIALIZE = (*SDKS, "re2", "sqlite3", "pathspec", "httpx2", "pydantic", "tree_sitter", "tree_sitter_bash")


def loaded_after(statement: str, modules: tuple[str, ...]) -> list[str]:
    code = f"{statement}; import json, sys; print(json.dumps([m for m in {list(modules)!r} if m in sys.modules]))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_importing_the_server_imports_neither_sdk_nor_the_store():
    assert loaded_after("import agentls.lsp.server", BEFORE_INITIALIZE) == []


def test_the_agent_is_built_without_either_sdk():
    agent = ("agentls.agent.loop", "agentls.agent.store", "agentls.agent.runtime", "agentls.agent.endpoint_models",
             "agentls.agent.checkpoints", "agentls.agent.permissions")
    assert loaded_after(f"import agentls.lsp.server, {', '.join(agent)}", SDKS) == []


def test_the_entry_point_imports_no_more_than_the_server():
    # `python -m agentls serve`: the command-line dispatch adds nothing heavy either
    assert loaded_after("import agentls.cli", BEFORE_INITIALIZE) == []


# Records which thread first imports each agentls module, runs `agentls acp` until its stdin ends, waits
# for its other threads, and writes the names of the threads that imported agentls modules to argv[1].
IMPORTING_THREADS = """
import json, sys, threading
seen = set()
class Recorder:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.startswith("agentls"):
            seen.add(threading.current_thread().name)
        return None
sys.meta_path.insert(0, Recorder)
from agentls.cli import main
main(["acp"])
for thread in threading.enumerate():
    if thread is not threading.main_thread():
        thread.join(60)
open(sys.argv[1], "w").write(json.dumps(sorted(seen)))  # stdout belongs to the protocol
"""


def test_the_acp_agent_imports_its_modules_in_one_thread(tmp_path):
    """The model SDK loads in a thread while the client initializes; the agent's own modules load in the main
    thread only: two threads entering them at different points met each other's half-imported module (a
    package and its submodule) and a start failed with "partially initialized module"."""
    threads = tmp_path / "threads.json"
    # stdin: a pipe that ends at once (epoll refuses /dev/null)
    done = subprocess.run([sys.executable, "-c", IMPORTING_THREADS, str(threads)], capture_output=True, text=True,
                          timeout=120, input="")
    assert done.returncode == 0, done.stderr
    assert json.loads(threads.read_text()) == ["MainThread"]
