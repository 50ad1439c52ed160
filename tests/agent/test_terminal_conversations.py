"""The terminal's conversation commands go through the core's operations (agent/conversations.py).

`agentls repl`'s backend in this process, against the mock model: /rewind asks
once on the terminal about a file changed outside the agent (its diff shown, as
`agentls chat` shows the server's question), a no changes nothing, a yes
restores it; /new and /resume switch through the same core as the language
server and ACP.
"""

from __future__ import annotations

import io
import sys

from agentls.agent.approval import ApprovalPolicy
from agentls.agent.runtime import AgentRuntime
from agentls.agent.settings import parse_settings
from agentls.agent.workspace import Workspace
from agentls.cli.local import LocalBackend, terminal_asker
from agentls.cli.render import Renderer
from agentls.cli.repl import Repl
from agentls.mock_api import Reply, Text, ToolUse

from conftest import SECRET


async def test_rewind_new_and_resume_from_the_terminal(mock_api, workspace, data_dir, monkeypatch):
    out = io.StringIO()
    renderer = Renderer(out)
    policy = ApprovalPolicy(terminal_asker(renderer, approve_all=True))  # the turn's write: --yes
    runtime = AgentRuntime(Workspace([workspace]), policy, session_root=workspace, api_key=SECRET, new_session=True)
    backend = LocalBackend(runtime, renderer, policy)
    await runtime.start(parse_settings({"baseUrl": mock_api.base_url})[0])
    try:
        mock_api.script(Reply([ToolUse("write_file", {"path": "app.py", "content": "print('agent')\n"})]),
                        Reply([Text("done")]))
        await backend.chat("rewrite app.py")
        (checkpoint,) = await backend.checkpoints()
        (workspace / "app.py").write_text("print('the user, after the agent')\n")  # outside the agent

        monkeypatch.setattr(sys, "stdin", io.StringIO("n\n"))
        refused = await backend.rewind(checkpoint.id, "code")
        asked = out.getvalue()
        assert asked.count("? rewind: overwrite files changed outside the agent: app.py") == 1
        question = asked.split("? rewind:", 1)[1]
        assert "+def main():" in question and "-print('the user, after the agent')" in question  # its diff
        assert refused.cancelled and refused.restored == []
        assert (workspace / "app.py").read_text() == "print('the user, after the agent')\n"

        monkeypatch.setattr(sys, "stdin", io.StringIO("y\n"))
        done = await backend.rewind(checkpoint.id, "code")
        assert done.restored == ["app.py"] and done.conflicts == ["app.py"] and not done.cancelled
        assert (workspace / "app.py").read_text() == "def main():\n    return 'hello'\n"

        first = runtime.agent.session.id
        await backend.new_session()
        assert runtime.agent.session.id != first and runtime.agent.history() == []
        second = runtime.agent.session.id
        assert [(info.id, current) for info, current in await backend.sessions("")] == [(second, True), (first, False)]
        entries = await backend.resume(first)
        assert runtime.agent.session.id == first
        assert [entry.text for entry in entries if entry.role == "user"] == ["rewrite app.py"]
        assert [entry.text for entry in await backend.resume(first) if entry.role == "user"] == ["rewrite app.py"]
        # the new chat never got a prompt: nothing there to resume, so it is listed only while it is open
        assert [(info.id, current) for info, current in await backend.sessions("")] == [(first, True)]
    finally:
        await runtime.aclose()


async def test_plan_mode_from_the_terminal(mock_api, workspace, data_dir):
    """/plan refuses the turn's write without asking; /plan off approves, and the next write is asked as usual."""
    out = io.StringIO()
    renderer = Renderer(out)
    asked: list[str] = []

    async def ask(request):
        asked.append(request.kind)
        return True

    policy = ApprovalPolicy(ask)
    runtime = AgentRuntime(Workspace([workspace]), policy, session_root=workspace, api_key=SECRET, new_session=True)
    backend = LocalBackend(runtime, renderer, policy)
    repl = Repl(backend)
    await runtime.start(parse_settings({"baseUrl": mock_api.base_url})[0])
    try:
        assert await repl.command("/plan")
        assert "plan mode: the agent reads and searches only" in out.getvalue()
        write = Reply([ToolUse("write_file", {"path": "new.py", "content": "x = 1\n"})])
        mock_api.script(write, Reply([Text("planned")]))
        await repl.turn("add new.py")
        assert asked == [] and not (workspace / "new.py").exists()
        assert await repl.command("/plan maybe")
        assert "/plan takes nothing" in out.getvalue() and runtime.agent.mode == "plan"
        assert await repl.command("/plan off")
        assert "plan mode off" in out.getvalue() and runtime.agent.mode == "act"
        mock_api.script(write, Reply([Text("done")]))
        await repl.turn("go ahead")
        assert asked == ["write"] and (workspace / "new.py").read_text() == "x = 1\n"
    finally:
        await runtime.aclose()
