"""A subagent in the terminal (`agentls repl`'s backend in this process, against the mock model): an indented
block under its task call, its write asked naming it, and /cost naming each child and the sum."""

from __future__ import annotations

import io

from agentls.agent.approval import ApprovalPolicy
from agentls.agent.runtime import AgentRuntime
from agentls.agent.settings import parse_settings
from agentls.agent.workspace import Workspace
from agentls.cli.local import LocalBackend, terminal_asker
from agentls.cli.render import Renderer
from agentls.mock_api import Reply, Text, ToolUse

from conftest import SECRET


async def test_a_subagent_is_an_indented_block_and_cost_names_it(mock_api, workspace, data_dir):
    out = io.StringIO()
    renderer = Renderer(out)
    policy = ApprovalPolicy(terminal_asker(renderer, approve_all=True))  # --yes: asked, shown, approved
    runtime = AgentRuntime(Workspace([workspace]), policy, session_root=workspace, api_key=SECRET, new_session=True)
    backend = LocalBackend(runtime, renderer, policy)
    await runtime.start(parse_settings({"baseUrl": mock_api.base_url})[0])
    try:
        mock_api.script(Reply([ToolUse("task", {"description": "tidy notes", "prompt": "ETA: tidy notes.md",
                                                "tools": ["read_file", "write_file"]})]), Reply([Text("Tidied.")]))
        mock_api.script_for("ETA:", Reply([Text("Reading first."), ToolUse("read_file", {"path": "notes.md"})]),
                            Reply([ToolUse("write_file", {"path": "notes.md", "content": "# Notes\n42\n"})]),
                            Reply([Text("notes.md is tidy.")]))
        await backend.chat("tidy")
        shown = out.getvalue()
        block = shown[shown.index("┌ subagent “tidy notes”"):shown.index("└ “tidy notes” done")]
        assert "    │ ⏺ " in block and "notes.md" in block and "    │ tidy notes: Reading first." in block
        assert "? subagent “tidy notes” asks:" in shown and "? write notes.md" in shown
        assert (workspace / "notes.md").read_text() == "# Notes\n42\n"
        renderer.cost(await backend.cost())
        rows = out.getvalue().split("\n")
        [child] = [row for row in rows if "subagent “tidy notes”" in row and "requests" in row]
        [total] = [row for row in rows if "sum of 1 subagent:" in row]
        assert "3 requests" in child and "3 requests" in total
        resumed = io.StringIO()
        Renderer(resumed).transcript(await runtime.agent.transcript())
        shown = resumed.getvalue()  # a resumed conversation: the task card with its subagent's steps under it
        assert "⏺ tidy notes: done" in shown and "    │ ✓ " in shown and "└ “tidy notes” done: 3 requests" in shown
    finally:
        await runtime.aclose()
