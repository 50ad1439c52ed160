"""kill -9 of a running `agentls repl` mid-turn loses no completed message."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from agentls.agent.store import Database, SessionStore
from agentls.agent.store.records import replay
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
    mock = subprocess.Popen([sys.executable, "-m", "agentls.demo", "--script", str(script)],
                            stdout=subprocess.PIPE, text=True)
    line = mock.stdout.readline()
    return mock, line.strip().rsplit(" ", 1)[-1]


def repl(workspace: Path, base_url: str, env: dict) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "agentls", "repl", "--workspace", str(workspace), "--yes", "--base-url", base_url],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
        start_new_session=True,
    )


def stored(data: Path) -> str:
    """Every committed record, read by another process as the repl writes (WAL: readers never block)."""
    path = data / "sessions.db"
    if not path.exists():
        return ""
    db = Database.open(data)
    try:
        return "".join(body for (body,) in db.read("SELECT body FROM records"))
    except Exception:  # noqa: BLE001 - the tables may not exist yet
        return ""
    finally:
        db.close()


def wait_for(data: Path, needle: str, seconds: float = 20) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if needle in stored(data):
            return
        time.sleep(0.05)
    raise AssertionError(f"{needle!r} never appeared in {data}")


def restored(data: Path) -> list:
    db = Database.open(data)
    try:
        (latest, *_) = SessionStore(db).sessions()
        return replay(db.read("SELECT kind, body FROM records WHERE session = ? ORDER BY seq", (latest.id,))).messages
    finally:
        db.close()


def test_kill_dash_nine_mid_turn_then_restart_keeps_every_completed_message(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    env = {**os.environ, "AGENTLS_DATA_DIR": str(tmp_path / "data"), "ANTHROPIC_API_KEY": "sk-test"}
    mock, base_url = start_mock(tmp_path)
    try:
        first = repl(workspace, base_url, env)
        first.stdin.write("hello there\n")
        first.stdin.flush()
        data = tmp_path / "data"
        wait_for(data, "first answer, complete")
        first.stdin.write("now run the slow command\n")
        first.stdin.flush()
        wait_for(data, "sleep 30")  # the tool call is stored; the command is running
        time.sleep(0.5)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(10)

        before = restored(data)
        texts = json.dumps(before)
        for needle in ("hello there", "first answer, complete", "now run the slow command", "sleep 30"):
            assert needle in texts
        assert "interrupted" in json.dumps(before[-1])  # the open tool call is answered on restore
        assert request_problems([*before]) == []

        second = repl(workspace, base_url, env)
        out, _ = second.communicate("what now?\n/quit\n", timeout=30)
        assert "after the restart" in out  # the restarted repl took over the dead one's conversation
        after = restored(data)
        assert json.dumps(before[:4])[:-1] in json.dumps(after)  # everything before is still there
        assert "after the restart" in json.dumps(after)
    finally:
        mock.kill()
