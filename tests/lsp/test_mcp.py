"""agent/mcpServers and MCP tools over LSP: the real server process, the SDK-written test server."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from lsprotocol import types

from agentls.mock_api import Reply, Text, ToolUse
from .helpers import SECRET, options_for, server_env, wait_until
from forkserver import agentls_command

TEST_SERVER = str(Path(__file__).resolve().parent.parent / "mcp_test_server.py")
TOKEN = "mcp-env-secret-5521"
HEADER = "Bearer mcp-header-secret-9034"


def servers(**extra) -> dict:
    return {"test": {"command": sys.executable, "args": [TEST_SERVER, "stdio"], "env": {"TOKEN": TOKEN},
                     "tools": {"crash": "never", "echo": "ask"}, "approval": "always", **extra},
            "remote": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": HEADER}, "startupTimeout": 5}}


async def test_mcp_servers_listed_started_lazily_called_with_confirm_and_counted_in_context(
        start_editor, mock_api):
    editor = await start_editor(options_for(mock_api, mcpServers=servers()))
    lazy = await editor.request("agent/mcpServers", {"connect": False})
    assert [(s["name"], s["state"], s["tools"]) for s in lazy["servers"]] == [("remote", "idle", []),
                                                                             ("test", "idle", [])]

    listing = await editor.request("agent/mcpServers", {})
    remote, test = listing["servers"]
    assert test["state"] == "running" and test["transport"] == "stdio" and test["envKeys"] == ["TOKEN"]
    tools = {t["name"]: t for t in test["tools"]}
    assert tools["echo"] == {"name": "echo", "qualifiedName": "mcp__test__echo", "approval": "ask",
                             "description": "Repeat the text."}
    assert tools["crash"]["qualifiedName"] == "" and tools["crash"]["approval"] == "never"
    assert tools["big"]["approval"] == "always"
    assert remote["state"] == "failed" and "MCP server 'remote' could not start" in remote["error"]
    assert remote["headerKeys"] == ["Authorization"] and listing["toolListChanges"] == 0

    mock_api.script(Reply([ToolUse("mcp__test__echo", {"text": "via lsp"})]), Reply([Text("echoed")]))
    result = await editor.request("agent/chat", {"prompt": "echo"})
    assert result["text"] == "echoed"
    called = next(e["toolUseId"] for e in editor.events if e["kind"] == "toolStart")
    assert editor.confirms == [{"kind": "mcp", "server": "test", "tool": "echo", "input": '{\n "text": "via lsp"\n}',
                                "rules": ["mcp__test__echo"], "toolUseId": called}]
    assert mock_api.message_bodies[-1]["messages"][-1]["content"][0]["content"] == "echo: via lsp"
    tool_end = next(e for e in editor.events if e["kind"] == "toolEnd")
    assert tool_end["tool"] == "mcp__test__echo" and tool_end["summary"].startswith("test › echo")

    context = await editor.request("agent/context")
    [per_server] = context["mcpTools"]
    assert per_server["server"] == "test" and per_server["tools"] == 7 and per_server["tokens"] > 0
    assert context["toolListChanges"] == 0

    everything = repr(listing) + repr(context) + repr(editor.events) + repr(editor.client.messages)
    assert TOKEN not in everything and "mcp-header-secret" not in everything


async def test_settings_change_removes_a_server_and_bad_entries_are_reported(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api, mcpServers=servers()))
    assert len((await editor.request("agent/mcpServers", {"connect": False}))["servers"]) == 2
    editor.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"agentls": {
        "baseUrl": mock_api.base_url, "mcpServers": {"only": {"url": "ftp://nope"}, "test": servers()["test"]}}}))
    warning = await wait_until(lambda: [m for m in editor.client.messages if "mcpServers.only" in m.message])
    assert "`url` must be an http:// or https:// URL; server ignored" in warning[0].message
    listing = await editor.request("agent/mcpServers", {"connect": False})
    assert [s["name"] for s in listing["servers"]] == ["test"]


async def test_mcp_servers_params_are_checked(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api))
    assert await editor.request("agent/mcpServers") == {"servers": [], "toolListChanges": 0}
    try:
        await editor.request("agent/mcpServers", {"connect": "yes"})
    except Exception as error:  # noqa: BLE001 - pygls raises JsonRpcException subclasses
        assert getattr(error, "code", None) == -32602 and "connect" in str(error)
    else:
        raise AssertionError("connect must be a boolean")


async def test_agentls_chat_mcp_command_confirm_and_no_secret_in_any_output(workspace, data_dir, mock_api, tmp_path):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"test": servers()["test"]}}))
    env = server_env(data_dir, ANTHROPIC_BASE_URL=mock_api.base_url, ANTHROPIC_API_KEY=SECRET, AGENTLS_LOG="debug")
    mock_api.script(Reply([ToolUse("mcp__test__echo", {"text": "from chat"})]), Reply([Text("echoed it")]))
    process = await asyncio.create_subprocess_exec(
        *agentls_command(), "chat", "--workspace", str(workspace), "--mcp-config", str(config),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env)
    lines = ["/mcp", "echo please", "y", "/context", "/quit"]
    out, err = await asyncio.wait_for(process.communicate("\n".join(lines).encode() + b"\n"), 180)
    out, err = out.decode(), err.decode()
    assert process.returncode == 0, err
    assert "test [running] stdio" in out and "(env TOKEN=***)" in out
    assert "echo" in out and "mcp__test__echo" in out and "not offered" in out  # crash: never
    assert "? call echo on MCP server 'test'" in out and '"text": "from chat"' in out
    assert "test › echo" in out and "echoed it" in out
    assert "mcp test" in out and "tools" in out  # /context: per-server tool tokens
    assert TOKEN not in out and TOKEN not in err and SECRET not in err
