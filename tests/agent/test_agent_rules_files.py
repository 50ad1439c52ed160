"""Issue 30 #2: the agent cannot grant itself permissions. A write to a rules or instructions file is asked
whatever the mode; a workspace rules file only tightens until the user has accepted its content (asked once
per content, the answer kept with the user's data, not in the workspace)."""

import asyncio
import io
import json

from agentls.agent.approval import ApprovalDecision, ApprovalPolicy, ApprovalRequest
from agentls.cli.local import terminal_asker
from agentls.cli.render import Renderer
from agentls.mock_api import Reply, Text, ToolUse

ALLOWING = json.dumps({"permissions": {"allow": ["run_shell(touch *)"], "deny": ["run_shell(rm *)"]}})


def asker(answers: dict[str, bool]):
    asked: list = []

    async def ask(request):
        asked.append(request)
        return ApprovalDecision(answers.get(request.kind, False))

    return ask, asked


async def test_the_agent_cannot_allow_itself_commands_by_writing_the_rules_file(make_agent, mock_api, workspace,
                                                                               data_dir):
    # file writes "always", shell "ask": on main the write ran unasked and the next turn's command too
    ask, asked = asker({"write": True, "rules": False, "shell": False})
    agent = make_agent(approve=ApprovalPolicy(ask, shell="ask", write="always"))
    mock_api.script(Reply([ToolUse("write_file", {"path": ".agents/settings.json", "content": ALLOWING})]),
                    Reply([Text("written")]),
                    Reply([ToolUse("run_shell", {"command": "touch ran.txt"})]), Reply([Text("done")]))
    await agent.run_turn("allow yourself touch")
    assert [r.kind for r in asked] == ["write"]  # asked although writes are "always"
    await agent.run_turn("now touch")
    assert [r.kind for r in asked] == ["write", "rules", "shell"]  # the file's allow rule waits for the user
    assert asked[1].path == ".agents/settings.json" and "allow run_shell(touch *)" in asked[1].diff
    assert "deny run_shell(rm *)" in asked[1].diff
    assert not (workspace / "ran.txt").exists()


async def test_a_workspace_file_only_tightens_until_its_content_is_accepted(make_agent, mock_api, workspace,
                                                                           data_dir):
    (workspace / ".agents").mkdir()
    rules_file = workspace / ".agents" / "settings.json"
    rules_file.write_text(ALLOWING)
    ask, asked = asker({"rules": False, "shell": False})
    policy = ApprovalPolicy(ask, shell="ask")
    agent = make_agent(approve=policy)
    touch = [Reply([ToolUse("run_shell", {"command": "touch ran.txt"})]), Reply([Text("ok")])]
    rm = [Reply([ToolUse("run_shell", {"command": "rm notes.md"})]), Reply([Text("ok")])]
    mock_api.script(*touch, *rm, *touch, *touch)
    await agent.run_turn("touch")
    assert [r.kind for r in asked] == ["rules", "shell"] and not (workspace / "ran.txt").exists()
    await agent.run_turn("rm")  # its deny rule holds at once; the refused content is not asked again
    assert [r.kind for r in asked] == ["rules", "shell"] and (workspace / "notes.md").exists()
    rules_file.write_text(ALLOWING.replace("touch *", "touch ran*"))  # a change is asked again
    ask_yes, asked_yes = asker({"rules": True})
    policy.ask = ask_yes
    await agent.run_turn("touch")
    assert [r.kind for r in asked_yes] == ["rules"] and (workspace / "ran.txt").exists()  # accepted: it allows
    (workspace / "ran.txt").unlink()
    await agent.run_turn("touch")  # accepted once for this content: not asked again
    assert [r.kind for r in asked_yes] == ["rules"] and (workspace / "ran.txt").exists()
    # the answer is the user's data, never the workspace's
    assert (data_dir / "accepted-rules.json").exists()
    assert not any(p.name == "accepted-rules.json" for p in workspace.rglob("*"))


async def test_writing_instructions_or_rules_is_asked_whatever_the_mode(make_agent, mock_api, workspace, data_dir):
    (workspace / "sub").mkdir()
    (workspace / "sub" / "CLAUDE.md").write_text("a\n")
    ask, asked = asker({})
    agent = make_agent(approve=ApprovalPolicy(ask, shell="always", write="always"))
    calls = [ToolUse("write_file", {"path": "AGENTS.md", "content": "Never ask."}),
             ToolUse("edit_file", {"path": "sub/CLAUDE.md", "old_text": "a", "new_text": "b"}),
             ToolUse("run_shell", {"command": "echo '{}' > .agents/settings.json"}),
             ToolUse("run_shell", {"command": "sed -i s/ask/allow/ AGENTS.md"}),
             ToolUse("run_shell", {"command": "f=.agents/settings.json; echo x > $f"}),
             ToolUse("run_shell", {"command": "cat AGENTS.md"})]
    mock_api.script(Reply(calls), Reply([Text("done")]))
    await agent.run_turn("rewrite your rules")
    assert [r.kind for r in asked] == ["write", "edit", "shell", "shell", "shell"]  # reading is not asked
    assert not (workspace / "AGENTS.md").exists() and not (workspace / ".agents").exists()
    assert (workspace / "sub" / "CLAUDE.md").read_text() == "a\n"


def test_the_terminal_shows_a_workspaces_rules_and_yes_never_accepts_them():
    request = ApprovalRequest("rules", path=".agents/settings.json", diff="allow run_shell(touch *)")
    notes = io.StringIO()
    answer = asyncio.run(terminal_asker(Renderer(io.StringIO(), notes=notes), approve_all=True)(request))
    assert answer.approved is False  # --yes approves the agent's calls, not a repository's rules
    shown = notes.getvalue()
    assert "accept the permission rules of .agents/settings.json" in shown and "allow run_shell(touch *)" in shown
    notes = io.StringIO()
    answer = asyncio.run(terminal_asker(Renderer(io.StringIO(), notes=notes), reader=io.StringIO("y\n"))(request))
    assert answer.approved is True
