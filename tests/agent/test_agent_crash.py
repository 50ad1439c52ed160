"""kill -9 of a running `agentls repl` mid-turn loses no completed message."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from agentls.agent.session import SessionLog
from agentls.context.structure import request_problems

SCRIPT = [
    {"content": [{"type": "text", "text": "first answer, complete"}]},
    {"content": [{"type": "text", "text": "running it"},
                 {"type": "tool_use", "name": "run_shell", "input": {"command": "sleep 30"}}]},
    {"content": [{"type": "text", "text": "after the restart"}]},
]


def start_mock(tmp_path: Path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    mock = subprocess.Popen([sys.executable, "-m", "agentls.mock_api", "--script", str(script)],
                            stdout=subprocess.PIPE, text=True)
    line = mock.stdout.readline()
    return mock, line.strip().rsplit(" ", 1)[-1]


def repl(workspace: Path, base_url: str, env: dict) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "agentls", "repl", "--workspace", str(workspace), "--yes", "--base-url", base_url],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
        start_new_session=True,
    )


def wait_for(path: Path, needle: str, seconds: float = 20) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if path.exists() and needle in path.read_text():
            return
        time.sleep(0.05)
    raise AssertionError(f"{needle!r} never appeared in {path}")


def test_kill_dash_nine_mid_turn_then_restart_keeps_every_completed_message(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    env = {**os.environ, "AGENTLS_DATA_DIR": str(tmp_path / "data"), "ANTHROPIC_API_KEY": "sk-test"}
    mock, base_url = start_mock(tmp_path)
    try:
        first = repl(workspace, base_url, env)
        first.stdin.write("hello there\n")
        first.stdin.flush()
        sessions = list((tmp_path / "data" / "sessions").glob("*/*/log.jsonl"))
        deadline = time.time() + 20
        while not sessions and time.time() < deadline:
            time.sleep(0.05)
            sessions = list((tmp_path / "data" / "sessions").glob("*/*/log.jsonl"))
        log_path = sessions[0]
        wait_for(log_path, "first answer, complete")
        first.stdin.write("now run the slow command\n")
        first.stdin.flush()
        wait_for(log_path, "sleep 30")  # the tool call is logged; the command is running
        time.sleep(0.5)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(10)

        log = SessionLog(log_path.parent)
        restored = log.restore().messages
        log.close()
        texts = json.dumps(restored)
        for needle in ("hello there", "first answer, complete", "now run the slow command", "sleep 30"):
            assert needle in texts
        assert "interrupted" in json.dumps(restored[-1])  # the open tool call is answered on restore
        assert request_problems([*restored]) == []

        second = repl(workspace, base_url, env)
        out, _ = second.communicate("what now?\n/quit\n", timeout=30)
        assert "after the restart" in out
        resumed = SessionLog(log_path.parent)
        after = resumed.restore().messages
        resumed.close()
        assert json.dumps(restored[:4])[:-1] in json.dumps(after)  # everything before is still there
    finally:
        mock.kill()
