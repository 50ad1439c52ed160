"""agent/compact, cost, clear, context; settings and folders changed at run time; the demo model."""

from __future__ import annotations

import json
import sqlite3

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from agentls.demo.brain import DEMO_LABEL
from agentls.mock_api import Reply, Text, ToolUse
from .helpers import options_for, server_env, wait_until, UNBOUND_MODEL


async def test_compact_cost_clear_and_context(start_editor, mock_api, data_dir, workspace):
    (workspace / "notes.md").write_text("# Notes\nThe answer is 42.\n" + "a line worth summarising\n" * 100)
    editor = await start_editor(options_for(mock_api, model=UNBOUND_MODEL))  # the client's summary
    await wait_until(lambda: editor.usages)
    mock_api.script(Reply([ToolUse("read_file", {"path": "notes.md"})]), Reply([Text("It says 42.")]))
    await editor.request("agent/chat", {"prompt": "read notes.md"})

    context = await editor.request("agent/context")
    assert set(context) == {"window", "effectiveWindow", "used", "utilization", "level", "categories", "layers",
                            "nextRequest", "autoCompactAt", "placeholders", "model", "demo", "modelWindow", "mcpTools",
                            "toolListChanges", "instructions", "instructionChanges", "warnings"}
    assert context["warnings"] == []  # no MCP server here
    assert set(context["categories"]) == {"system", "tools", "instructions", "user", "assistant", "toolResults"}
    assert context["categories"]["toolResults"] > 0 and context["level"] == "ok"
    assert all(set(layer) == {"layer", "count", "tokensSaved"} for layer in context["layers"])

    cost = await editor.request("agent/cost", {})
    assert set(cost) == {"model", "requests", "inputTokens", "outputTokens", "cacheReadTokens",
                         "cacheWriteTokens", "cacheWrite1hTokens", "cacheTtl", "usd", "unpricedModels", "subagents"}
    assert cost["requests"] == 2 and cost["usd"] > 0 and cost["unpricedModels"] == []

    before = len(editor.usages)
    mock_api.script(Reply([Text("<summary>1. Goal: read the notes</summary>")]))
    compacted = await editor.request("agent/compact", {"instructions": "keep the answer"})
    assert set(compacted) == {"tokensBefore", "tokensAfter", "summary", "compacted", "note"}
    assert compacted["summary"] == "1. Goal: read the notes" and compacted["tokensBefore"] > 0
    assert "keep the answer" in json.dumps(mock_api.message_bodies[-1]["messages"][-1])
    assert len(editor.usages) > before
    assert {"compactionStarted", "compactionFinished"} <= set(editor.kinds())

    sessions = lambda: sqlite3.connect(data_dir / "sessions.db").execute("SELECT COUNT(*) FROM sessions").fetchone()[0]  # noqa: E731
    assert sessions() == 1
    before = len(editor.usages)
    assert await editor.request("agent/clear") == {}
    assert sessions() == 2  # the old session stays in the store
    await wait_until(lambda: len(editor.usages) > before)
    assert editor.usages[-1]["categories"]["toolResults"] == 0
    assert (await editor.request("agent/cost"))["requests"] == 0


async def test_compact_of_an_empty_conversation_changes_nothing(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api))
    result = await editor.request("agent/compact")
    assert result["tokensBefore"] == result["tokensAfter"] and result["summary"] == ""


async def test_a_new_server_resumes_the_workspace_session(start_editor, mock_api):
    first = await start_editor(options_for(mock_api))
    mock_api.script(Reply([Text("remember 7")]))
    await first.request("agent/chat", {"prompt": "remember 7"})
    await first.client.shutdown_session()
    second = await start_editor(options_for(mock_api))
    mock_api.script(Reply([Text("it was 7")]))
    await second.request("agent/chat", {"prompt": "what was it?"})
    assert "remember 7" in json.dumps(mock_api.message_bodies[-1]["messages"])


async def test_settings_change_reconfigures_without_restart(start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api))
    assert (await editor.request("agent/context"))["window"] == 200_000
    editor.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"agentls": {
        "baseUrl": mock_api.base_url, "model": "claude-test-model", "contextWindow": 50_000, "outputReserve": 5_000,
        "thresholds": {"warn": 0.01, "high": 0.9}, "approvals": {"shell": "never"}}}))
    await wait_until(lambda: editor.usages and editor.usages[-1]["window"] == 50_000)
    context = await editor.request("agent/context")
    assert context["effectiveWindow"] == 45_000 and context["model"] == "claude-test-model"
    mock_api.script(Reply([ToolUse("run_shell", {"command": "touch ran.txt"})]), Reply([Text("no")]))
    await editor.request("agent/chat", {"prompt": "run"})
    assert mock_api.message_bodies[-1]["model"] == "claude-test-model"
    assert editor.confirms == [] and not (workspace / "ran.txt").exists()
    assert editor.usages[-1]["level"] == "warn"


async def test_neovims_empty_settings_and_bad_fields_keep_the_agent_running(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api))
    editor.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={}))
    editor.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"baseUrl": mock_api.base_url, "contextWindow": "big", "approvals": {"shell": "sometimes"}}))
    await wait_until(lambda: any("contextWindow" in m.message for m in editor.client.messages))
    mock_api.script(Reply([Text("still here")]))
    assert (await editor.request("agent/chat", {"prompt": "hi"}))["text"] == "still here"


async def test_workspace_folders_change_moves_the_roots(start_editor, mock_api, workspace, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "todo.txt").write_text("buy milk\n")
    editor = await start_editor(options_for(mock_api))
    editor.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(added=[types.WorkspaceFolder(other.as_uri(), "other")],
                                                removed=[types.WorkspaceFolder(workspace.as_uri(), "ws")])))
    mock_api.script(Reply([ToolUse("read_file", {"path": "todo.txt"})]), Reply([Text("milk")]))
    await editor.request("agent/chat", {"prompt": "read todo.txt"})
    assert "buy milk" in mock_api.message_bodies[-1]["messages"][-1]["content"][0]["content"]


async def test_demo_model_without_key_or_base_url(start_editor, data_dir, workspace):
    editor = await start_editor({"supportsConfirm": True}, env=server_env(data_dir))
    await wait_until(lambda: editor.usages)
    assert editor.usages[0]["demo"] is True
    assert any("demo model" in m.message for m in editor.client.messages)
    result = await editor.request("agent/chat", {"prompt": "What does notes.md say?"})
    assert DEMO_LABEL in result["text"] and "42" in result["text"]
    # one label per reply, however many model calls the turn made (a read, then the answer)
    assert result["text"].count(DEMO_LABEL) == 1 and result["text"].startswith(DEMO_LABEL)
    assert (await editor.request("agent/context"))["demo"] is True
    # Every view names the model that answers, never the configured default.
    assert {u["model"] for u in editor.usages} == {"demo model (offline)"}
    assert (await editor.request("agent/context"))["model"] == "demo model (offline)"
    cost = await editor.request("agent/cost")
    assert cost["model"] == "demo model (offline)" and cost["usd"] == 0


async def test_requests_before_initialize_are_refused(data_dir):
    from pytest_lsp.client import LanguageClient

    from agentls.lsp.transport import raw_converter

    from .helpers import server_command

    client = LanguageClient(converter_factory=raw_converter)
    await client.start_io(*server_command(), env=server_env(data_dir))
    client.capabilities = types.ClientCapabilities()  # pytest-lsp's own check, not an initialize
    try:
        with pytest.raises(JsonRpcException) as failure:
            await client.protocol.send_request_async("agent/cost", None)
        assert failure.value.code == -32002
    finally:
        client.protocol.notify("exit", None)
        await client.stop()


async def test_settings_null_pulls_workspace_configuration(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api))
    editor.client.set_configuration({"baseUrl": mock_api.base_url, "contextWindow": 60_000}, section="agentls")
    editor.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await wait_until(lambda: editor.usages and editor.usages[-1]["window"] == 60_000)


async def test_supports_events_false_sends_no_agent_events(start_editor, mock_api):
    editor = await start_editor({**options_for(mock_api), "supportsEvents": False})
    mock_api.script(Reply([Text("quiet")]))
    assert (await editor.request("agent/chat", {"prompt": "hi"}))["text"] == "quiet"
    assert editor.events == [] and editor.usages


async def test_multi_root_workspace(start_editor, mock_api, workspace, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "todo.txt").write_text("buy milk\n")
    editor = await start_editor(options_for(mock_api), folders=[workspace, other])
    mock_api.script(Reply([ToolUse("read_file", {"path": "other/todo.txt"}),
                           ToolUse("read_file", {"path": "notes.md"})]), Reply([Text("both")]))
    await editor.request("agent/chat", {"prompt": "read both"})
    results = mock_api.message_bodies[-1]["messages"][-1]["content"]
    assert "buy milk" in results[0]["content"] and "The answer is 42." in results[1]["content"]
