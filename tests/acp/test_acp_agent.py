"""`agentls acp` driven by the SDK's own client side against the mock API: the issue-23 "Must show" list.

Each test spawns the real agent process (`python -m agentls acp`) with
`acp.spawn_agent_process`; the model is the local Anthropic-compatible mock
(scripted replies), which also refuses any request that is not a valid API
request, so "the next request carries the conversation" is checked by the
request the mock received.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from acp import schema
from acp_client import EditorClient, agent_env, prompt, running_agent
from agentls.mock_api import Reply, Text, ToolUse
from agentls.mock_api.tokens import count_input_tokens

MCP_SERVER = str(Path(__file__).resolve().parents[1] / "mcp_test_server.py")  # the mcp SDK's test server


async def test_a_prompt_that_reads_a_file_streams_a_tool_call_its_content_and_usage(tmp_path, mock_api, workspace):
    mock_api.script(Reply([Text("Let me look."), ToolUse("read_file", {"path": "notes.md"})]),
                    Reply([Text("The notes say 42.")]))
    client = EditorClient()
    async with running_agent(client, agent_env(tmp_path, mock_api)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=prompt("what do the notes say?")), 60)

    assert answer.stop_reason == "end_turn"
    assert client.text() == "Let me look.\n\nThe notes say 42."
    [start] = client.of("tool_call")
    assert (start.kind, start.status, start.title) == ("read", "in_progress", "read_file notes.md")
    assert [loc.path for loc in start.locations] == [str((workspace / "notes.md").resolve())]
    assert start.raw_input == {"path": "notes.md"}
    [end] = client.of("tool_call_update")
    assert end.tool_call_id == start.tool_call_id and end.status == "completed"
    shown = end.content[0].content.text
    assert "The answer is 42." in shown  # the file's content, as the model saw it
    sent = mock_api.message_bodies[1]["messages"][-1]["content"][0]
    assert sent["type"] == "tool_result" and sent["content"] == shown

    # usage_update after each model call: `used` is that request's prompt size, `size` the working window.
    usages = client.of("usage_update")
    prompts = [count_input_tokens(body) for body in mock_api.message_bodies]
    assert len(prompts) == 2
    used = [u.used for u in usages]
    at = [used.index(size) for size in prompts]  # each call's size shows, in order
    assert at == sorted(at)
    kinds = client.kinds()
    first_reply_usage = [i for i, k in enumerate(kinds) if k == "usage_update"]
    assert any(kinds.index("tool_call") > i for i in first_reply_usage)  # one before the tool ran
    assert {u.size for u in usages} == {180_000}  # 200K window − 20K output reserve (model/catalog.py)
    assert usages[-1].cost.currency == "USD" and usages[-1].cost.amount > 0


async def test_a_shell_command_asks_permission_and_reject_leaves_it_unrun(tmp_path, mock_api, workspace):
    mock_api.script(Reply([ToolUse("run_shell", {"command": "touch ran.txt"})]), Reply([Text("Not run, then.")]))
    client = EditorClient()
    client.answer = "reject_once"
    async with running_agent(client, agent_env(tmp_path, mock_api)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await asyncio.wait_for(conn.prompt(session_id=session.session_id, prompt=prompt("touch it")), 60)

    assert answer.stop_reason == "end_turn"
    assert not (workspace / "ran.txt").exists()
    [asked] = client.permissions
    [start] = client.of("tool_call")
    assert asked.tool_call.tool_call_id == start.tool_call_id and start.kind == "execute"
    assert asked.tool_call.title == "Run `touch ran.txt`"
    assert {o.kind for o in asked.options} == {"allow_once", "allow_always", "reject_once", "reject_always"}
    [end] = client.of("tool_call_update")
    assert end.status == "failed" and "did not approve" in end.content[0].content.text
    result = mock_api.message_bodies[-1]["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and result["is_error"] and "did not approve" in result["content"]


async def test_always_answers_are_remembered_for_the_session(tmp_path, mock_api, workspace):
    """allow always runs the same command again without asking; reject always refuses it without asking."""
    script = [Reply([ToolUse("run_shell", {"command": "echo a >> log.txt"})]), Reply("ok"),
              Reply([ToolUse("run_shell", {"command": "echo a >> log.txt"})]), Reply("ok"),
              Reply([ToolUse("run_shell", {"command": "echo b >> log.txt"})]), Reply("ok"),
              Reply([ToolUse("run_shell", {"command": "echo b >> log.txt"})]), Reply("ok")]
    mock_api.script(*script)
    client = EditorClient()
    async with running_agent(client, agent_env(tmp_path, mock_api)) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        client.answer = "allow_always"
        for _ in range(2):
            await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("a")), 60)
        client.answer = "reject_always"
        for _ in range(2):
            await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("b")), 60)
    assert [p.tool_call.title for p in client.permissions] == ["Run `echo a >> log.txt`", "Run `echo b >> log.txt`"]
    assert (workspace / "log.txt").read_text() == "a\na\n"


async def test_compact_is_offered_and_lowers_used(tmp_path, mock_api, workspace):
    long = "words " * 3000
    mock_api.script(Reply(f"First answer. {long}"), Reply(f"Second answer. {long}"),
                    Reply("SUMMARY: the user asked twice; both answers were long."))
    client = EditorClient()
    async with running_agent(client, agent_env(tmp_path, mock_api), compaction=True) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("one")), 60)
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("two")), 60)
        [offered] = client.of("available_commands_update")
        assert {c.name for c in offered.available_commands} >= {"compact", "cost", "context", "new"}
        assert next(c.input.root.hint for c in offered.available_commands if c.name == "compact")
        before = client.of("usage_update")[-1].used
        answer = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("/compact keep the numbers")), 60)

    assert answer.stop_reason == "end_turn"
    summary_request = mock_api.message_bodies[-1]
    # the default model compacts on the server: the focus goes in the compaction's instructions
    assert summary_request["compaction"]["instructions"].endswith("keep the numbers")
    started, finished = client.of("compaction_update")
    assert started.compaction_id == finished.compaction_id
    assert (started.status, finished.status) == ("in_progress", "completed")
    assert "SUMMARY: the user asked twice" in finished.summary[0].text
    after = client.of("usage_update")[-1].used
    assert after < before - 3000, (before, after)  # the first long answer is summarised away
    assert "Compacted:" in client.text()


async def test_without_the_compaction_opt_in_compaction_is_told_in_a_message(tmp_path, mock_api, workspace):
    mock_api.script(Reply("A. " + "words " * 2000), Reply("B. " + "words " * 2000), Reply("SUMMARY: two turns."))
    client = EditorClient()
    async with running_agent(client, agent_env(tmp_path, mock_api)) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        for text in ("one", "two", "/compact"):
            await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt(text)), 60)
    assert client.of("compaction_update") == []
    assert "[compacting the conversation (manual)…]" in client.text()
    assert "SUMMARY: two turns." in client.text()


async def test_cost_context_and_new(tmp_path, mock_api, workspace):
    mock_api.script(Reply("hello"), Reply("fresh"))
    client = EditorClient()
    async with running_agent(client, agent_env(tmp_path, mock_api)) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("hi")), 60)
        for command in ("/cost", "/context", "/new"):
            await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt(command)), 60)
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("again")), 60)
        listed = await conn.list_sessions(cwd=str(workspace))
    text = client.text()
    assert "**Cost of this session:** $" in text and "- 1 request\n" in text
    assert "**Context:**" in text and "tool definitions:" in text
    assert "New conversation (saved as" in text
    assert len(mock_api.message_bodies) == 2  # the commands asked the model nothing
    assert [m["role"] for m in mock_api.message_bodies[-1]["messages"]] == ["user"]  # /new: a fresh history
    assert len(listed.sessions) == 2


async def test_session_list_then_a_second_process_loads_it_and_carries_the_conversation(tmp_path, mock_api, workspace):
    mock_api.script(Reply([ToolUse("read_file", {"path": "app.py"})]), Reply("It returns hello."))
    env = agent_env(tmp_path, mock_api)
    first = EditorClient()
    async with running_agent(first, env) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("what does main return?")), 60)
        listed = await conn.list_sessions(cwd=str(workspace))
    [info] = listed.sessions
    assert (info.session_id, info.cwd, info.title) == (sid, str(workspace.resolve()), "what does main return?")
    assert info.updated_at and info.updated_at.endswith("Z")
    [titled] = first.of("session_info_update")
    assert titled.title == "what does main return?"

    second = EditorClient()
    mock_api.script(Reply("Still hello."))
    async with running_agent(second, env) as (conn, _):
        await asyncio.wait_for(conn.load_session(cwd=str(workspace), session_id=sid, mcp_servers=[]), 60)
        replayed = list(second.kinds())
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("and now?")), 60)

    assert replayed[:3] == ["user_message_chunk", "tool_call", "agent_message_chunk"] or \
        replayed[:3] == ["user_message_chunk", "agent_message_chunk", "tool_call"]
    assert second.of("user_message_chunk")[0].content.text == "what does main return?"
    [tool] = second.of("tool_call")
    assert (tool.status, tool.kind) == ("completed", "read") and "return 'hello'" in tool.content[0].content.text
    assert "It returns hello." in second.text()
    messages = mock_api.message_bodies[-1]["messages"]
    assert messages[0]["content"][-1]["text"] == "what does main return?"
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user"]
    assert messages[-1]["content"][-1]["text"] == "and now?"
    # the second process's request extends what the first one sent: the prompt cache carries over
    assert messages[:4] == [*mock_api.message_bodies[1]["messages"], messages[3]]


async def test_session_load_replays_the_transcript_of_record_after_a_compaction(tmp_path, mock_api, workspace):
    """Issue 18 over ACP: session/load shows what was seen (both prompts, their replies, the compaction as a
    divider with its summary), not the model's compacted history (which begins with the summary as a user turn)."""
    long = "words " * 2000
    mock_api.script(Reply(f"First answer. {long}"), Reply(f"Second answer. {long}"), Reply("SUMMARY: two turns."))
    env = agent_env(tmp_path, mock_api)
    async with running_agent(EditorClient(), env) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        for text in ("one", "two", "/compact"):
            await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt(text)), 60)
    loaded = EditorClient()
    async with running_agent(loaded, env, compaction=True) as (conn, _):
        await asyncio.wait_for(conn.load_session(cwd=str(workspace), session_id=sid, mcp_servers=[]), 60)
    assert [u.content.text for u in loaded.of("user_message_chunk")] == ["one", "two"]
    assert "First answer." in loaded.text() and "Second answer." in loaded.text()
    [divider] = loaded.of("compaction_update")
    assert divider.status == "completed" and divider.summary[0].text.startswith("SUMMARY: two turns.")
    kinds = [k for k in loaded.kinds() if k in ("user_message_chunk", "compaction_update")]
    assert kinds == ["user_message_chunk", "user_message_chunk", "compaction_update"]  # in the order it happened


async def test_client_mcp_servers_join_the_configured_ones(tmp_path, mock_api, workspace):
    config = tmp_path / "config" / "agentls"
    config.mkdir(parents=True)
    (config / "settings.json").write_text(json.dumps(
        {"mcpServers": {"configured": {"command": sys.executable, "args": [MCP_SERVER, "stdio"]}}}))
    mock_api.script(Reply("ok"))
    client = EditorClient()
    async with running_agent(client, agent_env(tmp_path, mock_api)) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[
            schema.McpServerStdio(name="fromclient", command=sys.executable, args=[MCP_SERVER, "stdio"], env=[]),
            schema.SseMcpServer(type="sse", name="old", url="http://127.0.0.1:9/sse", headers=[])])).session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("hi")), 120)
    tools = {t["name"] for t in mock_api.message_bodies[-1]["tools"]}
    assert {"mcp__configured__echo", "mcp__fromclient__echo"} <= tools
    assert "'old': its transport (sse) is not supported" in client.text()


def _workspace_file(root: Path, text: str) -> None:
    (root / ".agents").mkdir()
    (root / ".agents" / "settings.json").write_text(text)


async def test_settings_files_user_may_loosen_workspace_may_not(tmp_path, mock_api, workspace):
    config = tmp_path / "config" / "agentls"
    config.mkdir(parents=True)
    (config / "settings.json").write_text('{"agentls": {"approvals": {"shell": "always"}}}')
    _workspace_file(workspace, '{"approvals": {"write": "always"}, "baseUrl": "https://elsewhere.example"}')
    mock_api.script(Reply([ToolUse("run_shell", {"command": "touch ran.txt"})]),
                    Reply([ToolUse("write_file", {"path": "new.txt", "content": "x"})]), Reply("done"))
    client = EditorClient()
    client.answer = "reject_once"
    async with running_agent(client, agent_env(tmp_path, mock_api)) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("go")), 60)
    assert (workspace / "ran.txt").exists()  # the user's file: shell commands run without asking
    assert not (workspace / "new.txt").exists()  # the workspace file could not make writes "always"
    assert [p.tool_call.title for p in client.permissions] == ["Write new.txt"]
    text = client.text()
    assert "approvals.write = 'always' is ignored" in text and "baseUrl is ignored in a workspace file" in text
    assert len(mock_api.message_bodies) == 3  # baseUrl stayed the mock's


async def test_the_task_list_custom_commands_and_rules_reach_an_acp_client(tmp_path, mock_api, workspace):
    """Issue 21 over ACP: todo_write becomes a `plan` (again on session/load), a .agents/commands/ file is an
    offered command whose use sends its text with $ARGUMENTS filled in, "allow always" adds the allow rule
    "Always" adds elsewhere (the next identical command runs unasked), and a workspace deny rule refuses
    without asking."""
    (workspace / ".agents" / "commands").mkdir(parents=True)
    (workspace / ".agents" / "commands" / "explain.md").write_text(
        "---\ndescription: Explain a file\nargument-hint: <file>\n---\nWhat does $ARGUMENTS say?\n")
    (workspace / ".agents" / "settings.json").write_text(json.dumps({"permissions": {"deny": ["run_shell(rm *)"]}}))
    todos = [{"content": "read the notes", "status": "completed"}, {"content": "answer", "status": "in_progress"}]
    mock_api.script(Reply([ToolUse("todo_write", {"todos": todos})]), Reply("planned"),
                    Reply([ToolUse("run_shell", {"command": "echo hi"})]), Reply("ran"),
                    Reply([ToolUse("run_shell", {"command": "echo hi"}),
                           ToolUse("run_shell", {"command": "rm -rf x"})]),
                    Reply("done"))
    env = agent_env(tmp_path, mock_api)
    client = EditorClient()
    client.answer = "allow_always"
    async with running_agent(client, env) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("/explain notes.md")), 60)
        for text in ("run it", "again, and clean up"):
            await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt(text)), 60)

    offered = client.of("available_commands_update")[0].available_commands
    explain = next(c for c in offered if c.name == "explain")
    assert explain.description == "Explain a file" and explain.input.root.hint == "<file>"
    assert mock_api.message_bodies[0]["messages"][0]["content"][-1]["text"] == "What does notes.md say?"
    [plan] = client.of("plan")
    assert [(e.content, e.status) for e in plan.entries] == [("read the notes", "completed"), ("answer", "in_progress")]

    [asked] = client.permissions  # the second `echo hi` ran under the rule; `rm -rf x` was never asked
    always = next(o for o in asked.options if o.kind == "allow_always")
    assert always.name == "Allow always (this session): run_shell(echo hi)"
    results = mock_api.message_bodies[-1]["messages"][-1]["content"]
    assert "hi" in results[0]["content"] and not results[0].get("is_error")
    assert results[1]["is_error"] and "run_shell(rm *)" in results[1]["content"]
    denied = client.of("tool_call_update")[-1]
    assert denied.status == "failed" and "permission rule `run_shell(rm *)`" in denied.content[0].content.text

    second = EditorClient()
    async with running_agent(second, env) as (conn, _):
        await asyncio.wait_for(conn.load_session(cwd=str(workspace), session_id=sid, mcp_servers=[]), 60)
    [replayed] = second.of("plan")  # a loaded session shows its task list
    assert [e.content for e in replayed.entries] == ["read the notes", "answer"]


async def test_a_cloned_repositorys_allow_rule_does_not_loosen_the_users_choices(tmp_path, mock_api, workspace):
    """Issue 30 #2 over ACP: a workspace `.agents/settings.json` allowing `touch *` ran the command with no
    permission request. Its allow rules now wait for the user's acceptance (a permission request showing
    the file's rules); refused, the command is asked like any other, and refused it does not run."""
    _workspace_file(workspace, json.dumps({"permissions": {"allow": ["run_shell(touch *)"]}}))
    mock_api.script(Reply([ToolUse("run_shell", {"command": "touch ran.txt"})]), Reply("done"))
    client = EditorClient()
    client.answer = "reject_once"
    async with running_agent(client, agent_env(tmp_path, mock_api)) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("go")), 60)
    titles = [p.tool_call.title for p in client.permissions]
    assert titles == ["Accept the permission rules of .agents/settings.json (its allow rules apply only if you "
                      "accept)", "Run `touch ran.txt`"]
    assert "allow run_shell(touch *)" in client.permissions[0].tool_call.content[0].content.text
    assert not (workspace / "ran.txt").exists()
