"""`agentls acp --verbose` writes a debug log to stderr that holds neither the API key nor an MCP server's
secrets, though they pass through it: the SDK logs each request's body at debug level, and here the body
carries a workspace file (.env) that holds them all."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import acp
from acp import schema
from acp_client import EXIT_SECONDS, SECRET, EditorClient, agent_env, capabilities, prompt
from agentls.mock_api import Reply, ToolUse
from forkserver import agentls_command

MCP_SERVER = str(Path(__file__).resolve().parents[1] / "mcp_test_server.py")
ENV_SECRET = "mcp-env-secret-7f3a9c"
HEADER_SECRET = "mcp-header-secret-2b8e41"


async def test_verbose_log_holds_neither_the_key_nor_mcp_secrets(tmp_path, mock_api, workspace):
    (workspace / ".env").write_text(
        f"ANTHROPIC_API_KEY={SECRET}\nTOKEN={ENV_SECRET}\nAUTHORIZATION=Bearer {HEADER_SECRET}\n")
    mock_api.script(Reply([ToolUse("read_file", {"path": ".env"})]), Reply("done"))
    log = tmp_path / "stderr.log"
    with log.open("wb") as stderr:
        transport = {"stderr": stderr, "shutdown_timeout": EXIT_SECONDS}
        async with acp.spawn_agent_process(EditorClient(), *agentls_command("acp", "--verbose"),
                                           env=agent_env(tmp_path, mock_api), transport_kwargs=transport) as (conn, _):
            await asyncio.wait_for(conn.initialize(protocol_version=acp.PROTOCOL_VERSION,
                                                   client_capabilities=capabilities()), 60)
            sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[
                schema.McpServerStdio(name="local", command=sys.executable, args=[MCP_SERVER, "stdio"],
                                      env=[schema.EnvVariable(name="TOKEN", value=ENV_SECRET)]),
                schema.HttpMcpServer(type="http", name="remote", url="http://127.0.0.1:9/mcp",
                                     headers=[schema.HttpHeader(name="Authorization",
                                                                value=f"Bearer {HEADER_SECRET}")])])).session_id
            await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("what is in .env and TOKEN?")), 120)
    sent = mock_api.message_bodies[-1]["messages"]
    assert all(s in str(sent) for s in (SECRET, ENV_SECRET, HEADER_SECRET))  # they went through the turn
    text = log.read_text(errors="replace")
    assert "DEBUG anthropic" in text  # the log really is at debug level, request bodies included
    assert [s for s in (SECRET, ENV_SECRET, HEADER_SECRET) if s in text] == []
