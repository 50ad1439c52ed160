"""A third-party ACP client in the suite: `acpx` (npm, pinned in tests/acp/ts_client/package.json) drives
`agentls acp` as its users do — a process per prompt, the session resumed by the next one.

acpx keeps a session per folder in ~/.acpx (HOME is the test's own), starts the agent for a prompt and
keeps it for `--ttl` seconds after the queue drains; the next prompt starts it again and resumes the
session (session/resume). With `--format json` it prints every JSON-RPC message it exchanged, which the
test reads: a file read through the client (fs/read_text_file), the edit's permission with its diff, the
call's states, `/compact`, and a cancel from another acpx process (`acpx cancel`).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from acp_client import agent_env, alive
from agentls.mock_api import Reply, Text, ToolUse
from forkserver import agentls_command

pytestmark = pytest.mark.xdist_group("acp-ts-client")  # one worker owns tests/acp/ts_client's npm ci

CLIENT = Path(__file__).resolve().parent / "ts_client"
# Pinned in ts_client/package.json. 0.16 and later depend on @openclaw/fs-safe, whose optional platform
# packages (darwin, win32) are not all on the registry: its lock file cannot satisfy `npm ci`.
ACPX_VERSION = "0.15.1"
NODE, NPM = shutil.which("node"), shutil.which("npm")
WAIT = 120  # seconds for one acpx command (it starts the agent: slow on a loaded machine)


@pytest.fixture(scope="module")
def acpx() -> Path:
    if not (NODE and NPM):
        pytest.skip("node/npm not found (install Node 20+)")
    binary = CLIENT / "node_modules" / ".bin" / "acpx"
    if not binary.exists():
        subprocess.run([NPM, "ci", "--no-audit", "--no-fund"], cwd=CLIENT, check=True, capture_output=True,
                       timeout=600)
    return binary


class Acpx:
    """acpx in one folder, with its own HOME (its session records) and the agent's environment."""

    def __init__(self, binary: Path, workspace: Path, env: dict[str, str], home: Path) -> None:
        self.binary, self.workspace = binary, workspace
        self.env = {**env, "HOME": str(home)}
        self.home = home
        self.agent = shlex.join(agentls_command("acp"))

    def command(self, *args: str) -> list[str]:
        return [str(self.binary), "--agent", self.agent, "--cwd", str(self.workspace), "--ttl", "1",
                "--format", "json", "--approve-all", *args]

    def run(self, *args: str, fresh: bool = True) -> list[dict[str, Any]]:
        """One acpx command; `fresh`: once the previous prompt's agent has exited (a process per prompt,
        and no prompt sent to a queue owner whose --ttl is running out)."""
        if fresh:
            self.wait_until_the_agent_exits()
        done = subprocess.run(self.command(*args), env=self.env, capture_output=True, text=True, timeout=WAIT,
                              check=False)
        assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
        return messages(done.stdout)

    def start(self, *args: str) -> subprocess.Popen[str]:
        self.wait_until_the_agent_exits()
        return subprocess.Popen(self.command(*args), env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)

    def agent_pid(self) -> int | None:
        records = list((self.home / ".acpx" / "sessions").glob("*.json"))
        pid = json.loads(records[0].read_text()).get("pid") if records else None
        return pid if isinstance(pid, int) else None

    def wait_until_the_agent_exits(self) -> None:
        """acpx keeps the agent --ttl seconds after a prompt, in its queue owner process (which holds
        ~/.acpx/queues/*.lock); the next prompt then starts both again. A prompt sent while the owner is
        still shutting down is refused by acpx itself ("Queue owner is shutting down"): wait for both."""
        pid = self.agent_pid()
        deadline = time.monotonic() + WAIT
        while (pid is not None and alive(pid)) or any((self.home / ".acpx" / "queues").glob("*.lock")):
            assert time.monotonic() < deadline, "acpx's queue owner or agent process did not exit"
            time.sleep(0.05)



def messages(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def updates(found: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [m["params"]["update"] for m in found if m.get("method") == "session/update"
            and m["params"]["update"].get("sessionUpdate") == kind]


def said(found: list[dict[str, Any]]) -> str:
    return "".join(u["content"].get("text", "") for u in updates(found, "agent_message_chunk"))


def methods(found: list[dict[str, Any]]) -> list[str]:
    return [m["method"] for m in found if "method" in m]


def test_acpx_drives_a_prompt_a_permission_compact_and_cancel_across_agent_restarts(
        acpx, tmp_path, mock_api, workspace):
    version = subprocess.run([str(acpx), "--version"], capture_output=True, text=True, timeout=60, check=True)
    print(f"acpx {version.stdout.strip()} (node {subprocess.check_output([NODE, '--version'], text=True).strip()})")
    assert version.stdout.strip() == ACPX_VERSION
    long = "words " * 2000
    mock_api.script(Reply([Text("Reading."), ToolUse("read_file", {"path": "notes.md"})]),
                    Reply(f"The notes say 42. {long}"),
                    Reply([ToolUse("edit_file", {"path": "notes.md", "old_text": "The answer is 42.",
                                                 "new_text": "The answer is 43."})]),
                    Reply(f"Fixed. {long}"),
                    Reply("SUMMARY: the notes were read and the answer fixed."),
                    Reply([ToolUse("run_shell", {"command": "echo $$ > pid.txt; sleep 60"})]),
                    Reply("Still here."))
    client = Acpx(acpx, workspace, agent_env(tmp_path, mock_api), tmp_path / "home")
    client.home.mkdir()
    client.run("sessions", "new")

    # a prompt; the file is read through the client
    first = client.run("prompt", "what do the notes say?")
    assert "fs/read_text_file" in methods(first) and "The notes say 42." in said(first)
    [read] = updates(first, "tool_call")
    assert read["status"] == "in_progress" and read["kind"] == "read"

    # the agent exited; the next prompt starts it again and resumes the conversation
    second = client.run("prompt", "fix the answer")
    assert {"session/resume", "session/load"} & set(methods(second))
    assert "what do the notes say?" in json.dumps(mock_api.message_bodies[2]["messages"])  # the conversation went on
    [asked] = [m["params"] for m in second if m.get("method") == "session/request_permission"]
    [diff] = [c for c in asked["toolCall"]["content"] if c["type"] == "diff"]
    assert (diff["oldText"], diff["newText"]) == ("The answer is 42.", "The answer is 43.")
    assert diff["path"] == str((workspace / "notes.md").resolve())
    [edit] = updates(second, "tool_call")
    states = [edit["status"], *(u["status"] for u in updates(second, "tool_call_update")
                                 if u["toolCallId"] == edit["toolCallId"] and u.get("status"))]
    assert states == ["pending", "in_progress", "completed"]
    assert "fs/write_text_file" in methods(second) and "Fixed." in said(second)

    compacted = client.run("prompt", "/compact")
    assert re.search(r"\[compacted: \d+ → \d+ tokens\]", said(compacted)), said(compacted)

    # cancel from another acpx process while a command runs
    turn = client.start("prompt", "wait a minute")
    pid_file = workspace / "pid.txt"
    deadline = time.monotonic() + WAIT
    while not (pid_file.exists() and pid_file.read_text().strip()):
        assert turn.poll() is None and time.monotonic() < deadline, turn.stderr.read() if turn.stderr else ""
        time.sleep(0.05)
    client.run("cancel", fresh=False)  # to the running prompt's queue owner
    out, err = turn.communicate(timeout=WAIT)
    cut = messages(out)
    assert {"stopReason": "cancelled"} in [m.get("result") for m in cut], err[-3000:]
    [shell] = updates(cut, "tool_call")
    final = [u for u in updates(cut, "tool_call_update") if u["toolCallId"] == shell["toolCallId"]][-1]
    assert final["status"] == "failed" and "cancelled" in final["title"]

    after = client.run("prompt", "and now?")
    assert "Still here." in said(after)
    newest = mock_api.message_bodies[-1]["messages"][-1]["content"]
    assert "cancelled" in newest[0]["content"] and newest[-1] == {"type": "text", "text": "and now?"}
    client.wait_until_the_agent_exits()
