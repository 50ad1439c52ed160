"""The demo agent's rules, called directly (no HTTP)."""

from __future__ import annotations

import pytest

from agentls.mock_api import DEMO_LABEL, Text, Thinking, ToolUse, demo_reply
from agentls.mock_api.demo_agent import named_paths

ALL_TOOLS = [{"name": n, "input_schema": {"type": "object"}}
             for n in ("read_file", "list_files", "grep_search", "run_shell", "edit_file", "write_file")]


def ask(*messages, tools=ALL_TOOLS, **extra):
    return demo_reply({"model": "m", "max_tokens": 100, "messages": list(messages), "tools": tools, **extra})


def user(content):
    return {"role": "user", "content": content}


def tool_calls(reply):
    return [(b.name, b.input) for b in reply.content if isinstance(b, ToolUse)]


def texts(reply):
    return [b.text for b in reply.content if isinstance(b, Text)]


@pytest.mark.parametrize("text, expected", [
    ("Explain README.md please.", ["README.md"]),
    ("look at src/app.py and `tests/test_app.py`", ["src/app.py", "tests/test_app.py"]),
    ("compare ./setup.cfg with @pyproject.toml, and the Makefile", ["setup.cfg", "pyproject.toml", "Makefile"]),
    ("version 1.2.3, e.g. this, see https://example.com/x.html", []),
    ("README.md and README.md again", ["README.md"]),
])
def test_named_paths(text, expected):
    assert named_paths(text) == expected


def test_named_files_are_read_with_labelled_intro():
    reply = ask(user("What do README.md and src/app.py do?"))
    assert tool_calls(reply) == [("read_file", {"path": "README.md"}), ("read_file", {"path": "src/app.py"})]
    assert reply.effective_stop_reason == "tool_use"
    assert all(t.startswith(DEMO_LABEL) for t in texts(reply))
    ids = [b.id for b in reply.content if isinstance(b, ToolUse)]
    assert len(set(ids)) == 2 and ids == [b.id for b in ask(user("What do README.md and src/app.py do?")).content
                                          if isinstance(b, ToolUse)], "deterministic ids"


def test_answer_after_tool_results_summarises_in_markdown():
    first = ask(user("explain src/app.py"))
    (call,) = [b for b in first.content if isinstance(b, ToolUse)]
    assistant = {"role": "assistant", "content": [{"type": "tool_use", "id": call.id, "name": call.name, "input": call.input}]}
    result = user([{"type": "tool_result", "tool_use_id": call.id, "content": "import os\n\nprint('```')\n"}])

    reply = ask(user("explain src/app.py"), assistant, result)

    (text,) = texts(reply)
    assert text.startswith(DEMO_LABEL)
    assert "**src/app.py** has 3 lines" in text
    assert "````python\nimport os" in text, "fence longer than backticks inside, language from the extension"
    assert reply.effective_stop_reason == "end_turn" and not tool_calls(reply)


def test_files_already_read_are_not_read_again():
    call = {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "README.md"}}
    history = [user("read README.md"), {"role": "assistant", "content": [call]},
               user([{"type": "tool_result", "tool_use_id": "toolu_1", "content": "hello"}]),
               {"role": "assistant", "content": "done"}, user("what did README.md say again?")]
    reply = ask(*history)
    assert not tool_calls(reply)
    assert "earlier" in texts(reply)[0] and "hello" in texts(reply)[0]


def test_list_and_search_intents():
    assert tool_calls(ask(user("list the files"))) == [("list_files", {"path": "."})]
    assert tool_calls(ask(user("show me the files in src/"))) == [("list_files", {"path": "src"})]
    assert tool_calls(ask(user("which files are there?"))) == [("list_files", {"path": "."})]
    assert tool_calls(ask(user("list the files in docs/api"))) == [("list_files", {"path": "docs/api"})]
    assert tool_calls(ask(user("what does this file do? README.md"))) == [("read_file", {"path": "README.md"})]
    assert tool_calls(ask(user("search for TODO"))) == [("grep_search", {"pattern": "TODO"})]
    assert tool_calls(ask(user('grep "def main" in src/app.py'))) == [
        ("grep_search", {"pattern": "def main", "glob": "src/app.py"})]


def test_error_results_and_search_results_are_described():
    uses = [{"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "gone.py"}},
            {"type": "tool_use", "id": "t2", "name": "grep_search", "input": {"pattern": "x"}}]
    results = [{"type": "tool_result", "tool_use_id": "t1", "content": "file not found", "is_error": True},
               {"type": "tool_result", "tool_use_id": "t2", "content": [{"type": "text", "text": "a.py:1: x\nb.py:2: x"}]}]
    (text,) = texts(ask(user("q"), {"role": "assistant", "content": uses}, user(results)))
    assert "`read_file` failed for `gone.py`: file not found" in text
    assert "Found 2 matching lines for `x`" in text


def test_tools_not_offered_are_not_called():
    reply = ask(user("explain README.md"), tools=[])
    assert not tool_calls(reply)
    assert "does not offer it" in texts(reply)[0]


def test_plain_question_gets_labelled_help():
    (text,) = texts(ask(user("hello there")))
    assert text.startswith(DEMO_LABEL) and "hello there" in text


def test_thinking_block_when_thinking_is_enabled():
    reply = ask(user("read README.md"), thinking={"type": "enabled", "budget_tokens": 1024})
    assert isinstance(reply.content[0], Thinking)
