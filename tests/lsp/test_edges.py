"""Issue 8, point 6 over LSP with the real server: credentials, stdin, confirm timeout, editor writes."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import time

import pytest
from pygls.exceptions import JsonRpcException

from agentls.mock_api import Fault, Reply, Text, ToolUse
from .helpers import options_for, server_command, server_env, wait_until

KEY = "sk-ant-env-key-DISTINCTIVE-0a1b2c"
TOKEN = "proxy-token-DISTINCTIVE-9z8y7x"
LOOK = r"""cat /proc/$PPID/environ | tr '\0' '\n' | grep -a ANTHROPIC; env | grep ANTHROPIC; echo looked"""


def _env_options(mock_api) -> dict:
    return {"supportsConfirm": True, "settings": {"baseUrl": mock_api.base_url}}


async def test_an_approved_command_cannot_read_the_key_from_the_server(start_editor, mock_api, data_dir):
    env = server_env(data_dir, ANTHROPIC_API_KEY=KEY, ANTHROPIC_AUTH_TOKEN=TOKEN)
    # plain: a forked server's /proc/<pid>/environ is its fork server's, which never held the key
    editor = await start_editor(_env_options(mock_api), env=env, plain=True)
    mock_api.script(Reply([ToolUse("run_shell", {"command": LOOK})]), Reply([Text("seen")]))
    await editor.request("agent/chat", {"prompt": "look around"})
    output = mock_api.message_bodies[-1]["messages"][-1]["content"][0]["content"]
    assert "looked" in output
    assert KEY not in output and TOKEN not in output, output
    sent = [r.headers.get("x-api-key", "") + r.headers.get("authorization", "") for r in mock_api.requests]
    assert any(KEY in s for s in sent)  # the key still reached the endpoint


async def test_an_echoed_auth_token_is_masked(start_editor, mock_api, data_dir):
    env = server_env(data_dir, ANTHROPIC_AUTH_TOKEN=TOKEN)
    editor = await start_editor(_env_options(mock_api), env=env)
    mock_api.inject(Fault.http_status(400, message=f"bad bearer {TOKEN}"))
    with pytest.raises(JsonRpcException) as failure:
        await editor.request("agent/chat", {"prompt": "hello"})
    assert "bad bearer" in failure.value.message and TOKEN not in failure.value.message
    errors = [e["message"] for e in editor.events if e["kind"] == "error"]
    assert errors and all(TOKEN not in m for m in errors)
    assert any("Bearer " + TOKEN in r.headers.get("authorization", "") for r in mock_api.requests)


def test_the_server_exits_when_its_client_closes_stdin(tmp_path, data_dir):
    process = subprocess.Popen(server_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, env=server_env(data_dir), cwd=tmp_path)
    body = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"rootUri":null}}'
    process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    process.stdin.flush()
    assert process.stdout.readline().startswith(b"Content-Length")
    started = time.monotonic()
    process.stdin.close()  # the editor went away without shutdown/exit
    try:
        code = process.wait(timeout=90)
    finally:
        process.kill()
    print(f"\nserver exited {time.monotonic() - started:.2f} s after stdin closed (code {code})")
    assert code is not None


async def test_the_server_exits_after_stdin_closes_even_with_a_read_in_flight(start_editor, mock_api, workspace):
    os.mkfifo(workspace / "pipe")
    editor = await start_editor(options_for(mock_api))
    mock_api.script(Reply([ToolUse("read_file", {"path": "pipe"})]), Reply([Text("x " * 2000)], chunk_delay=0.02))
    turn = asyncio.ensure_future(editor.request("agent/chat", {"prompt": "read the pipe"}))
    await wait_until(lambda: "toolStart" in editor.kinds(), 60)
    process = editor.client._server
    started = time.monotonic()
    process.stdin.close()
    code = await asyncio.wait_for(process.wait(), 90)
    print(f"\nserver exited {time.monotonic() - started:.2f} s after stdin closed mid-turn (code {code})")
    turn.cancel()


async def test_an_unanswered_confirm_times_out_as_a_refusal(start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api, approvals={"timeoutSeconds": 1}))
    never = asyncio.Event()

    async def no_answer(params):
        await never.wait()  # the user walked away
        return {"approved": True}

    editor.confirm_answer = no_answer
    mock_api.script(Reply([ToolUse("run_shell", {"command": "touch ran.txt"})]), Reply([Text("ok, not run")]))
    result = await asyncio.wait_for(editor.request("agent/chat", {"prompt": "run"}), 60)
    assert result["text"] == "ok, not run"
    assert not (workspace / "ran.txt").exists()
    told = mock_api.message_bodies[-1]["messages"][-1]["content"][0]
    assert told["is_error"] and "did not approve" in told["content"]
    never.set()


def test_confirm_timeout_setting_is_checked():
    from agentls.agent.settings import parse_settings

    assert parse_settings({"approvals": {"timeoutSeconds": 2.5}})[0].confirm_timeout == 2.5
    settings, problems = parse_settings({"approvals": {"timeoutSeconds": -1, "shell": "always"}})
    assert settings.confirm_timeout == 300 and settings.approvals == {"shell": "always"}
    assert problems == ["settings.approvals.timeoutSeconds must be a number of seconds above 0 (at most 86400)"]


async def test_a_3_mb_mention_neither_refused_nor_stuck(start_editor, mock_api, workspace):
    """Issue 8, point 3 over LSP: agent/context stays under 100% and no request is refused."""
    big = workspace / "bundle.min.js"
    big.write_text("".join(f"var a{n}={'1' * 60};\n" for n in range(48_000)))
    mock_api.max_prompt_tokens = 200_000
    editor = await start_editor(options_for(mock_api))
    mock_api.script(Reply([Text("a bundle")]), Reply([Text("<summary>a bundle was attached</summary>")]),
                    Reply([Text("after compaction")]))
    first = await editor.request("agent/chat", {"prompt": "what is this?", "attachments": [{"uri": big.as_uri()}]})
    context = await editor.request("agent/context")
    print(f"\n3.3 MB mention: agent/context {context['utilization']:.0%} after the turn")
    assert first["text"] == "a bundle" and context["utilization"] < 1
    await editor.request("agent/compact", {})
    assert (await editor.request("agent/chat", {"prompt": "go on"}))["text"] == "after compaction"
    from agentls.mock_api.tokens import count_input_tokens
    assert all(count_input_tokens(body) <= 200_000 for body in mock_api.message_bodies)


async def test_editor_edit_rechecks_the_path_before_apply_edit(start_editor, mock_api, workspace, tmp_path):
    """Issue 8, point 6: a folder swapped for a symlink while the dialog is open → no workspace/applyEdit."""
    (workspace / "sub").mkdir()
    target = workspace / "sub" / "file.txt"
    target.write_text("old\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "file.txt").write_text("old\n")
    editor = await start_editor(options_for(mock_api))
    editor.open(target, "old\n")

    async def swap_then_approve(params):
        shutil.rmtree(workspace / "sub")
        os.symlink(outside, workspace / "sub")
        return {"approved": True}

    editor.confirm_answer = swap_then_approve
    mock_api.script(Reply([ToolUse("edit_file", {"path": "sub/file.txt", "old_text": "old", "new_text": "new"})]),
                    Reply([Text("refused")]))
    await editor.request("agent/chat", {"prompt": "edit"})
    told = mock_api.message_bodies[-1]["messages"][-1]["content"][0]
    assert told["is_error"] and "symlink" in told["content"]
    assert editor.edits == [] and (outside / "file.txt").read_text() == "old\n"
