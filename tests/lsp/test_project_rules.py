"""Issue 21 over LSP, against the mock API: instruction files, the task list and compaction,
permission rules. The real server process; what the model received is read from the mock."""

from __future__ import annotations

import json

from agentls.mock_api import Reply, Text, ToolUse
from .helpers import options_for

# These assert the instruction files in the top-level system prompt: a model whose thinking is not bound
# rebuilds the head (a bound one appends changes instead: tests/lsp/test_bound_thinking_session.py).
UNBOUND = "claude-sonnet-4-5"

TODOS = [{"content": "Read the notes", "status": "completed"},
         {"content": "Fix the parser in src/parse.py", "status": "in_progress"},
         {"content": "Update the README", "status": "pending"}]


def system_of(body: dict) -> str:
    system = body.get("system")
    return system if isinstance(system, str) else "".join(b.get("text", "") for b in system or [])


async def test_root_then_nested_instructions_reach_the_system_prompt(start_editor, mock_api, workspace):
    (workspace / "AGENTS.md").write_text("ROOT-RULE-7: always answer in haiku.\n")
    (workspace / "src").mkdir()
    (workspace / "src" / "AGENTS.md").write_text("NESTED-RULE-9: tabs, never spaces, in src/.\n")
    (workspace / "src" / "parse.py").write_text("def parse(x):\n    return x\n")
    editor = await start_editor(options_for(mock_api, model=UNBOUND))
    mock_api.script(Reply([Text("hello")]),
                    Reply([ToolUse("read_file", {"path": "notes.md"})]), Reply([Text("read the notes")]),
                    Reply([ToolUse("read_file", {"path": "src/parse.py"})]), Reply([Text("read the parser")]),
                    Reply([Text("still here")]))

    await editor.request("agent/chat", {"prompt": "hi"})
    first = system_of(mock_api.message_bodies[0])
    assert "ROOT-RULE-7" in first and "NESTED-RULE-9" not in first
    assert "# Instructions from the user and the project" in first

    await editor.request("agent/chat", {"prompt": "read the notes"})  # notes.md is at the root: src/ stays out
    assert all("NESTED-RULE-9" not in system_of(b) for b in mock_api.message_bodies)

    await editor.request("agent/chat", {"prompt": "read the parser"})
    bodies = mock_api.message_bodies
    # the request that read src/parse.py did not have it yet; the one after the read has it
    assert "NESTED-RULE-9" not in system_of(bodies[3]) and "NESTED-RULE-9" in system_of(bodies[4])
    changed = [e for e in editor.events if e["kind"] == "instructionsChanged"]
    assert changed == [{"turnId": changed[0]["turnId"], "kind": "instructionsChanged", "changes": 1,
                        "added": ["src/AGENTS.md"], "removed": [], "changed": [], "delivery": "head"}]

    await editor.request("agent/chat", {"prompt": "and now?"})  # kept for the rest of the session
    assert "NESTED-RULE-9" in system_of(mock_api.message_bodies[-1])

    context = await editor.request("agent/context")
    assert [f["name"] for f in context["instructions"]] == ["AGENTS.md", "src/AGENTS.md"]
    categories = context["categories"]
    # the section: a heading, a preamble, then the files (their tokens listed one by one)
    assert categories["instructions"] >= sum(f["tokens"] for f in context["instructions"]) > 0
    assert context["instructionChanges"] == 1


async def test_an_edited_agents_md_is_in_the_next_request(start_editor, mock_api, workspace):
    (workspace / "AGENTS.md").write_text("Version one of the rules.\n")
    editor = await start_editor(options_for(mock_api, model=UNBOUND))
    mock_api.script(Reply([Text("one")]), Reply([Text("two")]))
    await editor.request("agent/chat", {"prompt": "first"})
    (workspace / "AGENTS.md").write_text("Version TWO of the rules, longer than before.\n")
    await editor.request("agent/chat", {"prompt": "second"})
    first, second = (system_of(b) for b in mock_api.message_bodies)
    assert "Version one" in first and "Version TWO" in second and "Version one" not in second
    assert [e["changed"] for e in editor.events if e["kind"] == "instructionsChanged"] == [["AGENTS.md"]]


async def test_instructions_and_the_task_list_survive_compaction(start_editor, mock_api, workspace):
    (workspace / "AGENTS.md").write_text("ROOT-RULE-7: run the tests before you say done.\n")
    (workspace / "src").mkdir()
    (workspace / "src" / "AGENTS.md").write_text("NESTED-RULE-9: tabs in src/.\n")
    (workspace / "src" / "parse.py").write_text("def parse(x):\n    return x\n" * 40)
    editor = await start_editor(options_for(mock_api, model=UNBOUND))
    mock_api.script(Reply([ToolUse("todo_write", {"todos": TODOS})]), Reply([Text("planned")]),
                    Reply([ToolUse("read_file", {"path": "src/parse.py"})]), Reply([Text("read it")]),
                    *[Reply([Text(f"answer {n} " + "words " * 60)]) for n in range(4)],
                    Reply([Text("<summary>We are fixing the parser.</summary>")]),
                    Reply([Text("after the compaction")]))
    await editor.request("agent/chat", {"prompt": "plan the work"})
    todo_events = [e for e in editor.events if e["kind"] == "todos"]
    assert todo_events[-1]["todos"] == TODOS
    assert (await editor.request("agent/todos"))["todos"] == TODOS
    await editor.request("agent/chat", {"prompt": "read the parser"})
    for n in range(4):
        await editor.request("agent/chat", {"prompt": f"question {n} " + "more " * 80})

    result = await editor.request("agent/compact", {})
    assert result["compacted"] is True
    await editor.request("agent/chat", {"prompt": "go on"})
    after = mock_api.message_bodies[-1]
    calls = [b.get("name") for m in after["messages"] for b in m["content"] if b.get("type") == "tool_use"]
    assert "todo_write" not in calls, "the todo_write call itself was summarised away"
    assert "ROOT-RULE-7" in system_of(after) and "NESTED-RULE-9" in system_of(after)
    summary_message = after["messages"][0]["content"]
    pinned = next(b["text"] for b in summary_message if "Kept verbatim" in b.get("text", ""))
    assert "- [x] Read the notes" in pinned
    assert "- [~] Fix the parser in src/parse.py" in pinned
    assert "- [ ] Update the README" in pinned
    assert (await editor.request("agent/todos"))["todos"] == TODOS


async def test_the_task_list_and_activated_folders_survive_a_restart(start_editor, mock_api, workspace):
    (workspace / "src").mkdir()
    (workspace / "src" / "AGENTS.md").write_text("NESTED-RULE-9: tabs in src/.\n")
    (workspace / "src" / "parse.py").write_text("x = 1\n")
    editor = await start_editor(options_for(mock_api, model=UNBOUND))
    mock_api.script(Reply([ToolUse("todo_write", {"todos": TODOS}), ToolUse("read_file", {"path": "src/parse.py"})]),
                    Reply([Text("done")]))
    await editor.request("agent/chat", {"prompt": "plan and read"})
    await editor.client.shutdown_session()

    again = await start_editor(options_for(mock_api, model=UNBOUND))
    assert (await again.request("agent/todos"))["todos"] == TODOS
    mock_api.script(Reply([Text("resumed")]))
    await again.request("agent/chat", {"prompt": "where were we?"})
    assert "NESTED-RULE-9" in system_of(mock_api.message_bodies[-1])


# ---------------------------------------------------------------- permission rules

def shell(command: str) -> Reply:
    return Reply([ToolUse("run_shell", {"command": command})])


def told(mock_api) -> dict:
    return mock_api.message_bodies[-1]["messages"][-1]["content"][0]


async def test_an_allowed_command_runs_without_asking(start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api, model=UNBOUND, permissions={"allow": ["run_shell(touch ran*)"]}))
    mock_api.script(shell("touch ran.txt"), Reply([Text("ok")]))
    await editor.request("agent/chat", {"prompt": "run it"})
    assert editor.confirms == [] and (workspace / "ran.txt").exists()


async def test_a_denied_command_and_a_denied_write_neither_run_nor_ask(start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api, model=UNBOUND, permissions={
        "deny": ["run_shell(rm *)", "write_file(secrets/**)"], "allow": ["run_shell(*)", "write_file"]}))
    (workspace / "keep.txt").write_text("keep me\n")
    mock_api.script(shell("rm keep.txt"), Reply([Text("refused")]))
    await editor.request("agent/chat", {"prompt": "delete it"})
    result = told(mock_api)
    assert result["is_error"] is True and "`run_shell(rm *)`" in result["content"] and "deny" in result["content"]
    assert (workspace / "keep.txt").exists()

    mock_api.script(Reply([ToolUse("write_file", {"path": "secrets/key.txt", "content": "x"})]), Reply([Text("no")]))
    await editor.request("agent/chat", {"prompt": "write the key"})
    assert "`write_file(secrets/**)`" in told(mock_api)["content"]
    assert not (workspace / "secrets").exists()
    assert editor.confirms == [] and editor.edits == []
    ends = [e for e in editor.events if e["kind"] == "toolEnd"]
    assert [e["summary"] for e in ends] == ["denied by run_shell(rm *)", "denied by write_file(secrets/**)"]
    assert [e["approval"] for e in ends] == ["refused", "refused"]  # the cards say nobody was asked


async def test_an_unlisted_command_asks(start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api, model=UNBOUND, permissions={"allow": ["run_shell(git status*)"]}))
    editor.confirm_answer = {"approved": False}
    mock_api.script(shell("touch other.txt"), Reply([Text("ok")]))
    await editor.request("agent/chat", {"prompt": "run it"})
    asking = next(e["toolUseId"] for e in editor.events if e["kind"] == "toolStart")
    assert editor.confirms == [{"kind": "shell", "command": "touch other.txt", "rules": ["run_shell(touch other.txt)"],
                                "toolUseId": asking}]
    assert not (workspace / "other.txt").exists()


async def test_a_chained_command_with_one_allowed_part_asks(start_editor, mock_api, workspace):
    (workspace / "x").mkdir()
    editor = await start_editor(options_for(mock_api, model=UNBOUND, permissions={"allow": ["run_shell(git status*)"]}))
    editor.confirm_answer = {"approved": False}
    mock_api.script(shell("git status && rm -rf x"), Reply([Text("ok")]))
    await editor.request("agent/chat", {"prompt": "run it"})
    assert len(editor.confirms) == 1  # asked, because rm -rf x is not allowed…
    assert editor.confirms[0]["rules"] == ["run_shell(rm -rf x)"]  # …and "Always" would add only that part
    assert (workspace / "x").is_dir()  # refused: nothing ran


async def test_always_adds_a_rule_that_later_calls_follow(start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api, model=UNBOUND))
    editor.confirm_answer = {"approved": True, "remember": True}
    mock_api.script(shell("touch a.txt && touch b.txt"), Reply([Text("ran")]),
                    shell("touch b.txt"), Reply([Text("ran again")]),
                    shell("touch c.txt"), Reply([Text("asked")]))
    await editor.request("agent/chat", {"prompt": "one"})
    await editor.request("agent/chat", {"prompt": "two"})
    assert len(editor.confirms) == 1  # `touch b.txt` alone is covered by the rule Always added
    await editor.request("agent/chat", {"prompt": "three"})
    assert len(editor.confirms) == 2
    listed = (await editor.request("agent/permissions"))["rules"]
    assert {"rule": "run_shell(touch a.txt)", "decision": "allow", "source": "added by Always (this session)"} in listed


async def test_workspace_rules_cannot_be_loosened_by_the_user(start_editor, mock_api, workspace):
    (workspace / ".agents").mkdir()
    (workspace / ".agents" / "settings.json").write_text(json.dumps(
        {"permissions": {"ask": ["run_shell(git push*)"], "allow": ["run_shell(touch *)"]}}))
    editor = await start_editor(options_for(mock_api, model=UNBOUND, permissions={"allow": ["run_shell(git push*)"],
                                                                   "deny": ["run_shell(touch secret*)"]}))

    async def accept_rules_only(params):  # the workspace file's allow rules are accepted (asked first)
        return {"approved": params["kind"] == "rules"}

    editor.confirm_answer = accept_rules_only
    mock_api.script(shell("git push origin main"), Reply([Text("asked")]),
                    shell("touch secret.txt"), Reply([Text("denied")]),
                    shell("touch fine.txt"), Reply([Text("ran")]))
    await editor.request("agent/chat", {"prompt": "push"})
    rules, push = editor.confirms
    assert rules["kind"] == "rules" and rules["path"] == ".agents/settings.json"
    assert rules["diff"] == "allow run_shell(touch *)\nask run_shell(git push*)" and "toolUseId" not in rules
    assert push["command"] == "git push origin main"  # the workspace's ask wins
    await editor.request("agent/chat", {"prompt": "secret"})
    assert not (workspace / "secret.txt").exists() and len(editor.confirms) == 2  # the user's deny wins
    await editor.request("agent/chat", {"prompt": "fine"})
    assert (workspace / "fine.txt").exists() and len(editor.confirms) == 2  # the workspace's allow, accepted
    sources = {r["rule"]: r["source"] for r in (await editor.request("agent/permissions"))["rules"]}
    assert sources["run_shell(git push*)"] in (".agents/settings.json", "settings")
