"""Issue 19, finding 5: no string from outside reaches a terminal as terminal controls.

Every terminal front end runs over one hostile fixture: a session imported with an
escape-laden title, an MCP server whose tool name, description, results and stderr
carry escapes (tests/mcp_odd_server.py), a file whose name carries them, and model
replies that do. `agentls ask`, `agentls repl` (in-process), `agentls chat` (over LSP)
and `agentls sessions list` must print none of ESC, another C0/C1 control or a
bidi control, and must still show what was there (escaped).
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path

from agentls.agent.mcp.names import qualified_name
from agentls.mock_api import Reply, Text, ToolUse
from .helpers import SECRET, server_env
from forkserver import agentls_command

ODD = str(Path(__file__).resolve().parent.parent / "mcp_odd_server.py")
HOSTILE = "\x1b[2J\x9b31m\u202eevil\x1b]8;;http://x\x07"  # as mcp_odd_server.HOSTILE
FILE_NAME = "evil\x1b[31m\u202etxt.md"
TOOL = qualified_name("evil", f"name{HOSTILE}")
# C0 controls but newline and tab, DEL, C1 controls, bidi embeddings/overrides/isolates/marks.
FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def forbidden_in(text: str) -> list[str]:
    return sorted({f"U+{ord(m.group()):04X} at …{text[max(0, m.start() - 30):m.start()]!r}"
                   for m in FORBIDDEN.finditer(text)})[:10]


async def run(args: list[str], env: dict[str, str], stdin: str = "") -> tuple[str, str, int]:
    process = await asyncio.create_subprocess_exec(
        *agentls_command(), *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=env)
    out, err = await asyncio.wait_for(process.communicate(stdin.encode()), 240)
    return out.decode(errors="replace"), err.decode(errors="replace"), process.returncode


def hostile_turn(mock_api) -> None:
    mock_api.script(Reply([Text(f"said {HOSTILE}\n"), ToolUse(TOOL, {}), ToolUse("read_file", {"path": FILE_NAME})]),
                    Reply([Text(f"done {HOSTILE}")]))


async def test_every_terminal_front_end_escapes_a_hostile_fixture(mock_api, workspace, data_dir, tmp_path):
    (workspace / FILE_NAME).write_text(f"inside {HOSTILE}\n")
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {
        "evil": {"command": sys.executable, "args": [ODD, "hostile"], "approval": "always"},
        "loud": {"command": sys.executable, "args": [ODD, "crash-loud"]}}}))
    env = server_env(data_dir, ANTHROPIC_BASE_URL=mock_api.base_url, ANTHROPIC_API_KEY=SECRET)
    exported = tmp_path / "hostile.jsonl"
    exported.write_text("\n".join(json.dumps(line) for line in [
        {"type": "session", "title": f"Title {HOSTILE}"},
        {"type": "message", "message": {"role": "user", "content": f"question {HOSTILE}"}},
        {"type": "message", "message": {"role": "assistant",
                                        "content": [{"type": "text", "text": f"answer {HOSTILE}"}]}},
    ]) + "\n")
    _, imported, code = await run(["sessions", "--workspace", str(workspace), "import", str(exported)], env)
    assert code == 0, imported
    session_id = re.search(r"imported as session (\S+)", imported).group(1)

    outputs: dict[str, str] = {}
    hostile_turn(mock_api)
    out, err, code = await run(["ask", "go", "--workspace", str(workspace), "--mcp-config", str(config), "--yes",
                                "--new"], env)
    assert code == 0, err
    outputs["ask"] = out + err

    commands = f"go\n/sessions\n/resume {session_id}\n/mcp\n/context\n/cost\n/quit\n"
    hostile_turn(mock_api)
    out, err, code = await run(["repl", "--workspace", str(workspace), "--mcp-config", str(config), "--yes", "--new"],
                               env, commands)
    assert code == 0, err
    outputs["repl"] = out + err

    hostile_turn(mock_api)
    out, err, code = await run(["chat", "--workspace", str(workspace), "--mcp-config", str(config), "--yes", "--new"],
                               env, commands)
    assert code == 0, err
    outputs["chat"] = out + err

    out, err, code = await run(["sessions", "--workspace", str(workspace), "list", "--all"], env)
    assert code == 0, err
    outputs["sessions list"] = out + err

    found = {name: forbidden_in(text) for name, text in outputs.items()}
    assert found == {name: [] for name in outputs}, found
    for name in ("ask", "repl", "chat"):  # shown, escaped: tool-end lines, model text
        assert "\\x1b[2J\\x9b31m\\u202eevil" in outputs[name], name
        assert "Read evil\\x1b[31m\\u202etxt.md" in outputs[name], name
    for name in ("repl", "chat"):  # titles, transcript, MCP tool names and stderr
        assert "Title \\x1b[2J" in outputs[name] and "answer \\x1b[2J" in outputs[name], name
        assert "name\\x1b[2J" in outputs[name] and "starting \\x1b[2J" in outputs[name], name
    assert "Title \\x1b[2J" in outputs["sessions list"]
