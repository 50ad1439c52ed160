"""`agentls chat`: the terminal REPL as an LSP client of a spawned server, driven through a pipe."""

from __future__ import annotations

import asyncio

from agentls.demo.brain import demo_reply
from agentls.mock_api import Reply, Text, ToolUse
from .helpers import SECRET, server_env
from forkserver import agentls_command


async def run_chat(workspace, env, lines: list[str], *flags: str) -> tuple[str, str, int]:
    process = await asyncio.create_subprocess_exec(
        *agentls_command(), "chat", "--workspace", str(workspace), *flags,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env)
    out, err = await asyncio.wait_for(process.communicate("\n".join(lines).encode() + b"\n"), 120)
    return out.decode(), err.decode(), process.returncode


async def test_chat_with_the_demo_model_and_every_command(workspace, data_dir):
    out, err, code = await run_chat(workspace, server_env(data_dir), [
        "What does notes.md say?", "/cost", "/context", "/compact", "/clear", "/help", "/quit"], "--new")
    assert code == 0, err
    assert "demo model" in out and "The answer is 42." in out
    assert "⏺ read_file notes.md" in out and "✓ Read notes.md" in out
    assert "2 requests" in out and "$0.0" in out  # /cost
    assert "toolResults" in out  # /context
    assert "compacted:" in out and "new conversation" in out and "/compact [instructions]" in out
    assert "% " in out and "K/180K demo]" in out  # utilization in the prompt: over the usable window


async def test_approvals_are_answered_on_the_terminal(workspace, data_dir, mock_api):
    env = server_env(data_dir, ANTHROPIC_BASE_URL=mock_api.base_url, ANTHROPIC_API_KEY=SECRET)
    mock_api.script(Reply([ToolUse("run_shell", {"command": "touch first.txt"})]), Reply([Text("refused, ok")]),
                    Reply([ToolUse("run_shell", {"command": "touch second.txt"})]), Reply([Text("ran it")]))
    out, err, code = await run_chat(workspace, env, ["run the first", "n", "run the second", "y", "/quit"])
    assert code == 0, err
    assert "? run: touch first.txt" in out and "refused, ok" in out and "ran it" in out
    assert not (workspace / "first.txt").exists() and (workspace / "second.txt").exists()
    assert SECRET not in out and SECRET not in err


async def test_yes_approves_everything(workspace, data_dir, mock_api):
    env = server_env(data_dir, ANTHROPIC_BASE_URL=mock_api.base_url, ANTHROPIC_API_KEY=SECRET)
    mock_api.script(Reply([ToolUse("write_file", {"path": "made.txt", "content": "hi\n"})]), Reply([Text("made")]))
    out, err, code = await run_chat(workspace, env, ["make it"], "--yes")
    assert code == 0, err
    assert "approved (--yes)" in out and (workspace / "made.txt").read_text() == "hi\n"


async def test_sessions_and_resume_in_the_terminal_chat(workspace, data_dir):
    out, err, code = await run_chat(workspace, server_env(data_dir), [
        "What does notes.md say?", "/new", "list the files", "/sessions", "/resume 2", "/sessions notes", "/quit"],
        "--new")
    assert code == 0, err
    listed = out.split("/resume", 1)[0]
    assert "1. list the files" in out and "2. What does notes.md say?" in out and "(this chat)" in out
    assert "resumed " in out and "you: What does notes.md say?" in out and "⏺ read_file notes.md" in out
    searched = out.rsplit("resumed ", 1)[1]
    assert "What does notes.md say?" in searched
    assert "list the files" not in searched.split("you:")[-1].split("\n", 3)[-1]
    assert listed


async def test_checkpoints_and_rewind_in_the_terminal_chat(workspace, data_dir, mock_api):
    env = server_env(data_dir, ANTHROPIC_BASE_URL=mock_api.base_url, ANTHROPIC_API_KEY=SECRET)
    mock_api.script(Reply([ToolUse("run_shell", {"command": "echo more >> notes.md && echo x > shell.txt"})]),
                    Reply([Text("ran it")]))
    out, err, code = await run_chat(workspace, env, ["append with the shell", "/checkpoints", "/rewind 9",
                                                     "/rewind 1 code", "/checkpoints", "/quit"], "--yes", "--new")
    assert code == 0, err
    listed = out.split("/rewind N", 1)[0]
    assert "1. " in listed and "append with the shell" in listed
    assert "added    shell.txt" in listed and "modified notes.md" in listed
    assert "/rewind N [code|conversation|both]" in out  # "/rewind 9": no such checkpoint
    assert "restored notes.md, shell.txt" in out
    assert "2. " in out.rsplit("restored", 1)[1] and "rewind: before rewinding" in out and "(rewound)" in out
    assert (workspace / "notes.md").read_text() == "# Notes\nThe answer is 42.\n"
    assert not (workspace / "shell.txt").exists()


async def test_slash_model_lists_the_endpoints_models_and_switches(workspace, data_dir):
    from agentls.mock_api import MockAnthropicServer, mock_model

    models = [mock_model("acme-sonnet-9", window=750_000, max_tokens=64_000, thinking=("enabled",)),
              mock_model("acme-deep-9", window=1_000_000, max_tokens=128_000, thinking=("adaptive",))]
    with MockAnthropicServer(models=models, responder=demo_reply) as api:
        api.script(Reply([Text("one")]), Reply([Text("two")]))
        env = server_env(data_dir, ANTHROPIC_BASE_URL=api.base_url, ANTHROPIC_API_KEY=SECRET)
        out, err, code = await run_chat(workspace, env, ["/model", "first", "/model acme-deep-9", "second",
                                                         "/cost", "/quit"], "--new")
        bodies = api.message_bodies
    assert code == 0, err
    assert "models offered by the endpoint:" in out
    assert " * acme-sonnet-9" in out and "750K window · 64K out · thinking manual · price unknown" in out
    assert "acme-deep-9" in out and "1M window · 128K out · thinking adaptive" in out
    assert [b["model"] for b in bodies] == ["acme-sonnet-9", "acme-deep-9"]
    assert bodies[1]["thinking"]["type"] == "adaptive"
    assert "price unknown for acme-sonnet-9, acme-deep-9" in out  # /cost: tokens counted, no borrowed price


async def test_a_models_api_slower_than_a_configured_models_wait_still_decides_the_model(workspace, data_dir):
    """With no model configured, the endpoint's list decides it: /model and the first turn wait for the list
    (its own LIST_TIMEOUT bounds it), so neither depends on how busy the machine is nor guesses a model from
    the offline table that this endpoint does not offer (it answered 404 when a loaded CI machine let the
    10 s wait for a configured model run out)."""
    from agentls.agent.endpoint_models import CATALOG_WAIT
    from agentls.mock_api import MockAnthropicServer, mock_model
    from agentls.model.models_api import LIST_TIMEOUT

    with MockAnthropicServer(models=[mock_model("acme-slow-9", window=500_000)], responder=demo_reply) as api:
        api.models_delay = (CATALOG_WAIT + LIST_TIMEOUT) / 2  # past the configured model's wait, within the list's
        api.script(Reply([Text("one")]))
        env = server_env(data_dir, ANTHROPIC_BASE_URL=api.base_url, ANTHROPIC_API_KEY=SECRET)
        out, err, code = await run_chat(workspace, env, ["/model", "first", "/quit"], "--new")
        bodies = api.message_bodies
    assert code == 0, err
    assert "models offered by the endpoint:" in out and " * acme-slow-9" in out
    assert [b["model"] for b in bodies] == ["acme-slow-9"] and "one" in out
