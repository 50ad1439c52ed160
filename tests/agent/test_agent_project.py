"""The agent's own side of issue 21: instruction tokens as a category that keeps the meter's sum, the task
list across a new conversation and a resume, and a denied tool call that is refused before it runs."""

from agentls.agent import events as ev
from agentls.agent.approval import ApprovalPolicy
from agentls.agent.permissions import parse_rules
from agentls.agent.store import open_session
from agentls.context.tokens import estimate_tokens
from agentls.mock_api import Reply, Text, ToolUse

PLAN = [{"content": "write the test", "status": "in_progress"}, {"content": "ship it", "status": "pending"}]


async def test_instruction_tokens_are_their_own_category_and_the_sum_is_unchanged(make_agent, mock_api, workspace):
    (workspace / "AGENTS.md").write_text("Use tabs.\n" * 50)
    agent = make_agent()
    await agent.run_turn("hi")
    report = agent.context_usage()
    cats = report.categories
    assert cats.instructions == estimate_tokens(len(agent.instructions.section)) > 100
    total = cats.system + cats.tools + cats.instructions + cats.user + cats.assistant + cats.tool_results
    assert total == agent.engine.raw_estimate  # the categories add up to the estimate the meter starts from
    assert "Use tabs." in str(mock_api.message_bodies[-1]["system"])


async def test_the_task_list_is_reset_by_a_new_chat_and_restored_by_resume(make_agent, mock_api, workspace):
    agent = make_agent()
    events: list = []
    mock_api.script(Reply([ToolUse("todo_write", {"todos": PLAN})]), Reply([Text("planned")]))
    await agent.run_turn("plan", events.append)
    assert [e.todos for e in events if isinstance(e, ev.TodosChanged)] == [list(agent.todos())]
    assert [(t.content, t.status) for t in agent.todos()] == [("write the test", "in_progress"), ("ship it", "pending")]
    first = agent.session.id
    agent.clear(open_session(workspace, new=True))
    assert agent.todos() == () and agent.engine.pinned == ""
    agent.resume(open_session(workspace, session_id=first))
    assert [t.content for t in agent.todos()] == ["write the test", "ship it"]
    assert "- [~] write the test" in agent.engine.pinned


async def test_an_invalid_list_is_refused_with_the_reason_and_nothing_changes(make_agent, mock_api):
    agent = make_agent()
    mock_api.script(Reply([ToolUse("todo_write", {"todos": [{"content": "x", "status": "done"}]})]),
                    Reply([Text("ok")]))
    await agent.run_turn("plan")
    result = mock_api.message_bodies[-1]["messages"][-1]["content"][0]
    assert result["is_error"] and "status must be one of pending, in_progress, completed" in result["content"]
    assert agent.todos() == ()


async def test_a_denied_read_is_refused_before_it_runs(make_agent, mock_api, workspace):
    (workspace / "secrets").mkdir()
    (workspace / "secrets" / "key.txt").write_text("TOP-SECRET-VALUE")
    asked = []

    async def ask(request):
        asked.append(request)
        return True

    policy = ApprovalPolicy(ask)
    policy.rules.set_user(parse_rules({"deny": ["read_file(secrets/**)"]}, "settings")[0])
    agent = make_agent(approve=policy)
    mock_api.script(Reply([ToolUse("read_file", {"path": "./secrets/../secrets/key.txt"})]), Reply([Text("no")]))
    await agent.run_turn("read the key")
    result = mock_api.message_bodies[-1]["messages"][-1]["content"][0]
    assert result["is_error"] and "`read_file(secrets/**)`" in result["content"]
    assert "TOP-SECRET-VALUE" not in str(mock_api.message_bodies[-1]) and asked == []


async def test_a_denied_path_is_neither_listed_nor_searched(make_agent, mock_api, workspace):
    """Issue 30 #3: `deny read_file(secrets/**)` held for read_file, but grep_search and list_files on `.`, with
    no path, with a glob or on the folder itself returned the secret's text or its name."""
    (workspace / "secrets").mkdir()
    (workspace / "secrets" / "key.txt").write_text("TOP-SECRET-VALUE\n")
    (workspace / "link.txt").symlink_to(workspace / "secrets" / "key.txt")
    (workspace / "public.txt").write_text("TOP-public\n")
    policy = ApprovalPolicy(None)
    policy.rules.set_user(parse_rules({"deny": ["read_file(secrets/**)"]}, "settings")[0])
    agent = make_agent(approve=policy)
    calls = [("grep_search", {"pattern": "TOP"}), ("grep_search", {"pattern": "TOP", "path": "."}),
             ("grep_search", {"pattern": "TOP", "glob": "**/*.txt"}),
             ("grep_search", {"pattern": "TOP", "path": "secrets"}),
             ("grep_search", {"pattern": "TOP", "path": "secrets/key.txt"}),
             ("list_files", {}), ("list_files", {"path": "."}), ("list_files", {"path": "secrets"}),
             ("list_files", {"path": "secrets/key.txt"})]
    mock_api.script(Reply([ToolUse(name, args) for name, args in calls]), Reply([Text("done")]))
    await agent.run_turn("find the key")
    results = mock_api.message_bodies[-1]["messages"][-1]["content"]
    texts = [block["content"] for block in results]
    assert len(texts) == len(calls)
    for (name, args), text in zip(calls, texts):
        named = args.get("path", "")  # a path the model wrote is echoed; nothing else may name the file
        assert "SECRET-VALUE" not in text and "key.txt" not in text.replace(named, ""), (name, args, text)
    assert "public.txt" in texts[0] and "public.txt" in texts[5]  # the rest is still found
    assert "link.txt" not in texts[0] + texts[5]  # a link to the secret is the secret
