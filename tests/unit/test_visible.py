"""Issue 8, point 5: approvals show exactly what will run, in every Python front end.

`\\r\\x1b[2K` used to make `agentls ask` display ``Run `ls -la`?`` while bash ran
something else; the same pattern hit `agentls chat` and printed diffs.
"""

from __future__ import annotations

import asyncio
import io
import os
import subprocess

from agentls.agent.approval import ApprovalRequest
from agentls.agent.visible import visible
from agentls.cli.local import terminal_asker
from agentls.cli.render import Renderer
from agentls.demo.brain import demo_reply
from agentls.lsp.confirm import message_text
from agentls.mock_api import MockAnthropicServer, Reply, Text, ToolUse
from forkserver import agentls_command

SPOOF = "rm -rf ~/precious\r\x1b[2Kls -la"
HIDDEN = ["\r", "\x1b", "\b", "\x07", "\x7f", "\x9b", "\u202e", "\u2066", "\u200b", "\u2028", "\ufeff"]


def test_visible_escapes_every_hidden_character_and_keeps_the_rest() -> None:
    assert visible(SPOOF) == "rm -rf ~/precious\\r\\x1b[2Kls -la"
    assert visible("a\bb\x00c\x7fd\x9be") == "a\\bb\\x00c\\x7fd\\x9be"
    assert visible("safe\u202e.txt\u2066x\u200by") == "safe\\u202e.txt\\u2066x\\u200by"
    assert visible("line 1\n\tline 2 café 😀 → λ") == "line 1\n\tline 2 café 😀 → λ"
    for char in HIDDEN:
        assert char not in visible(f"x{char}y")


def test_chat_terminal_approval_shows_escapes() -> None:
    out = io.StringIO()
    Renderer(out).approval(ApprovalRequest("shell", command=SPOOF))
    Renderer(out).approval(ApprovalRequest("write", path="a\u202eb.txt", diff="+ok\r\x1b[1Ahidden\n-x\n"))
    shown = out.getvalue()
    assert "rm -rf ~/precious\\r\\x1b[2Kls -la" in shown
    assert "a\\u202eb.txt" in shown and "+ok\\r\\x1b[1Ahidden" in shown
    assert not any(char in shown for char in HIDDEN)


def test_message_request_text_shows_escapes() -> None:
    shell = message_text(ApprovalRequest("shell", command=SPOOF))
    edit = message_text(ApprovalRequest("edit", path="x\u202e.py", diff="-a\n+b\x1b[2K\n"))
    assert "\\r\\x1b[2K" in shell and "x\\u202e.py" in edit and "+b\\x1b[2K" in edit
    assert not any(char in shell + edit for char in HIDDEN)


MCP_SPOOF = ApprovalRequest("mcp", server="git\u202e", tool="run\x1b[2K", input='{"a": 1}\r\x1b[2K{}')


def test_mcp_approvals_show_escapes_in_every_python_front_end() -> None:
    text = message_text(MCP_SPOOF)
    out = io.StringIO()
    Renderer(out).approval(MCP_SPOOF)
    err = io.StringIO()
    assert asyncio.run(terminal_asker(Renderer(io.StringIO(), notes=err), reader=io.StringIO("n\n"))(MCP_SPOOF)
                       ).approved is False
    for shown in (text, out.getvalue(), err.getvalue()):
        assert "run\\x1b[2K" in shown and "git\\u202e" in shown and "\\r\\x1b[2K{}" in shown, shown
        assert not any(char in shown for char in HIDDEN)


def test_agentls_ask_prompt_shows_the_real_command(tmp_path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    with MockAnthropicServer(responder=demo_reply) as mock:
        mock.script(Reply([ToolUse("run_shell", {"command": SPOOF})]), Reply([Text("ok")]))
        env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
        env.update(AGENTLS_DATA_DIR=str(tmp_path / "data"), ANTHROPIC_BASE_URL=mock.base_url)
        done = subprocess.run([*agentls_command(), "ask", "list", "--workspace", str(root)],
                              input="n\n", capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "? run: rm -rf ~/precious\\r\\x1b[2Kls -la" in done.stderr and "allow? [y]es" in done.stderr
    assert "\x1b[2K" not in done.stderr and "\r" not in done.stderr
