"""The API key appears in no log, no session file, no error text."""

import logging
import os
import subprocess
from pathlib import Path

from agentls.agent.errors import AgentError
from agentls.mock_api import Fault
from conftest import SECRET
from forkserver import agentls_command


def files_containing(folder: Path, needle: str) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


async def test_key_is_never_logged_persisted_or_shown(make_agent, mock_api, data_dir, caplog):
    caplog.set_level(logging.DEBUG)
    agent = make_agent(max_retries=1)
    await agent.run_turn("What does notes.md say?")
    for _ in range(2):
        mock_api.inject(Fault.http_status(401, message="invalid x-api-key"))
    try:
        await agent.run_turn("again")
    except AgentError as error:
        assert SECRET not in str(error) and SECRET not in repr(error)
    assert SECRET not in repr(agent.model_settings) and SECRET not in str(agent.model_settings)
    assert SECRET not in caplog.text
    assert files_containing(data_dir, SECRET) == []
    sent = [r.headers.get("x-api-key", "") + r.headers.get("authorization", "") for r in mock_api.requests]
    assert any(SECRET in s for s in sent)  # it was really sent


def test_cli_error_output_and_session_files_do_not_contain_the_key(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    data = tmp_path / "data"
    env = {**os.environ, "ANTHROPIC_API_KEY": SECRET, "AGENTLS_DATA_DIR": str(data)}
    done = subprocess.run(
        [*agentls_command(), "ask", "hi", "--workspace", str(workspace),
         "--base-url", "http://127.0.0.1:9"],  # nothing listens there
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert done.returncode != 0
    assert "agentls:" in done.stderr  # a clear error
    assert SECRET not in done.stdout + done.stderr
    assert files_containing(data, SECRET) == []
