"""`agentls ask`'s log (stderr, at debug level: AGENTLS_LOG, and the SDK's own ANTHROPIC_LOG) holds neither the
API key nor an MCP server's secrets, though they pass through it: the SDK logs each request's body at debug
level, and here the body carries a workspace file (.env) that holds them all."""

import json
import os
import subprocess
import sys
from pathlib import Path

from agentls.mock_api import Reply, ToolUse
from conftest import SECRET
from forkserver import agentls_command

MCP_SERVER = str(Path(__file__).resolve().parents[1] / "mcp_test_server.py")
ENV_SECRET = "mcp-env-secret-9d41e7"
HEADER_SECRET = "mcp-header-secret-c05a17"


def test_ask_debug_log_holds_neither_the_key_nor_mcp_secrets(tmp_path, mock_api, workspace):
    (workspace / ".env").write_text(
        f"ANTHROPIC_API_KEY={SECRET}\nTOKEN={ENV_SECRET}\nAUTHORIZATION=Bearer {HEADER_SECRET}\n")
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {
        "local": {"command": sys.executable, "args": [MCP_SERVER, "stdio"], "env": {"TOKEN": ENV_SECRET}},
        "remote": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": f"Bearer {HEADER_SECRET}"}}}}))
    mock_api.script(Reply([ToolUse("read_file", {"path": ".env"})]), Reply("done"))
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")},
           "ANTHROPIC_API_KEY": SECRET, "ANTHROPIC_BASE_URL": mock_api.base_url,
           "AGENTLS_DATA_DIR": str(tmp_path / "data"),
           "AGENTLS_LOG": "debug", "ANTHROPIC_LOG": "debug"}
    done = subprocess.run([*agentls_command(), "ask", "what is in .env?", "--workspace", str(workspace),
                           "--mcp-config", str(config), "--yes"], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    sent = str(mock_api.message_bodies[-1]["messages"])
    assert all(s in sent for s in (SECRET, ENV_SECRET, HEADER_SECRET))  # they went through the turn
    assert "Request options" in done.stderr  # the log really is at debug level, request bodies included
    assert [s for s in (SECRET, ENV_SECRET, HEADER_SECRET) if s in done.stdout + done.stderr] == []
