"""The demo agent's rules, called directly (no HTTP)."""

from __future__ import annotations

import pytest

from agentls.demo.brain import DEMO_LABEL, demo_reply, named_paths
from agentls.mock_api import Text, Thinking, ToolUse

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
    again = [b.id for b in ask(user("What do README.md and src/app.py do?")).content if isinstance(b, ToolUse)]
    # unique like a real model's: the same request in another conversation gets other ids (issue 18)
    assert len(set(ids)) == 2 and not set(ids) & set(again), "ids unique across conversations"


def test_answer_after_tool_results_summarises_in_markdown():
    first = ask(user("explain src/app.py"))
    (call,) = [b for b in first.content if isinstance(b, ToolUse)]
    assistant = {"role": "assistant",
                 "content": [{"type": "tool_use", "id": call.id, "name": call.name, "input": call.input}]}
    result = user([{"type": "tool_result", "tool_use_id": call.id, "content": "import os\n\nprint('```')\n"}])

    reply = ask(user("explain src/app.py"), assistant, result)

    (text,) = texts(reply)
    assert DEMO_LABEL not in text, "the turn's first reply carried the label: once per reply the user sees"
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


@pytest.mark.parametrize("stand_in", [
    '[old result cleared (105 chars); full text: read_file path="context://toolu_1"]',
    '[stale result: a newer read_file README.md comes later; this one (5 chars): read_file path="context://toolu_1"]',
    'hel\n\n[... truncated: 900 of 905 chars cut here; full text: read_file path="context://toolu_1" ...]\n\nlo',
])
def test_a_placeholder_never_stands_in_for_the_file(stand_in):
    """Issue 33.3: an earlier read whose result the pipeline cleared, snipped or cut is read again."""
    call = {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "README.md"}}
    history = [user("read README.md"), {"role": "assistant", "content": [call]},
               user([{"type": "tool_result", "tool_use_id": "toolu_1", "content": stand_in}]),
               {"role": "assistant", "content": "done"}, user("read README.md")]
    reply = ask(*history)
    assert tool_calls(reply) == [("read_file", {"path": "README.md"})]
    assert "cleared" not in " ".join(texts(reply))


def test_a_file_the_agent_says_changed_is_read_again_and_the_note_is_no_request():
    call = {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "README.md"}}
    note = {"type": "text", "text": "[changed on disk since you read them: README.md, notes.md. What you read of "
                                    "them earlier is out of date: read them again before relying on their content.]"}
    history = [user("read README.md"), {"role": "assistant", "content": [call]},
               user([{"type": "tool_result", "tool_use_id": "toolu_1", "content": "hello"}]),
               {"role": "assistant", "content": "done"}]
    reply = ask(*history, user([note, {"type": "text", "text": "what did README.md say again?"}]))
    assert tool_calls(reply) == [("read_file", {"path": "README.md"})]
    unrelated = ask(*history, user([note, {"type": "text", "text": "hello there"}]))
    assert not tool_calls(unrelated), "paths named in the note are not the user's request"


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
               {"type": "tool_result", "tool_use_id": "t2",
                "content": [{"type": "text", "text": "a.py:1: x\nb.py:2: x"}]}]
    (text,) = texts(ask(user("q"), {"role": "assistant", "content": uses}, user(results)))
    assert "`read_file` failed for `gone.py`: file not found" in text
    assert "Found 2 matching lines for `x`" in text


def test_a_refused_command_and_a_failure_without_arguments_are_described():
    uses = [{"type": "tool_use", "id": "t1", "name": "run_shell", "input": {"command": "ls -la"}},
            {"type": "tool_use", "id": "t2", "name": "list_files", "input": {}}]
    results = [{"type": "tool_result", "tool_use_id": "t1", "content": "The user did not approve running: ls -la",
                "is_error": True},
               {"type": "tool_result", "tool_use_id": "t2", "content": "no workspace", "is_error": True}]
    (text,) = texts(ask(user("q"), {"role": "assistant", "content": uses}, user(results)))
    assert "`run_shell` failed for `ls -la`: The user did not approve running: ls -la" in text
    assert "`list_files` failed: no workspace" in text and "``" not in text


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


def _answered(call: ToolUse, result: str) -> list[dict]:
    return [{"role": "assistant", "content": [{"type": "tool_use", "id": call.id, "name": call.name,
                                               "input": call.input}]},
            user([{"type": "tool_result", "tool_use_id": call.id, "content": result}])]


@pytest.mark.parametrize("text, command", [
    ("run ls -la", "ls -la"),
    ("Please run `grep -rn TODO .`", "grep -rn TODO ."),
    ("run the command pytest -q tests/unit", "pytest -q tests/unit"),
])
def test_run_asks_for_the_command(text, command):
    assert tool_calls(ask(user(text))) == [("run_shell", {"command": command})]


def test_edit_reads_then_proposes_a_unique_edit():
    first = ask(user("edit notes.md"))
    (read,) = [b for b in first.content if isinstance(b, ToolUse)]
    assert (read.name, read.input) == ("read_file", {"path": "notes.md"})

    body = "    1\t# Notes\n    2\t\n    3\t  indented line\n    4\t# Notes"
    second = ask(user("edit notes.md"), *_answered(read, body))
    (edit,) = [b for b in second.content if isinstance(b, ToolUse)]
    assert edit.name == "edit_file"
    assert edit.input["old_text"] == "  indented line", "the last line that occurs once, gutter removed"
    assert edit.input["new_text"].startswith("  indented line\n<!-- edited by the agentls demo model -->")

    third = ask(user("edit notes.md"), *_answered(read, body), *_answered(edit, "Edited notes.md"))
    assert tool_calls(third) == [] and third.effective_stop_reason == "end_turn"


def test_replace_with_in_file_uses_the_users_words():
    first = ask(user("replace `alpha` with `beta` in src/app.py"))
    (read,) = [b for b in first.content if isinstance(b, ToolUse)]
    second = ask(user("replace `alpha` with `beta` in src/app.py"), *_answered(read, "    1\tx = 'alpha'\n"))
    assert tool_calls(second) == [("edit_file", {"path": "src/app.py", "old_text": "alpha", "new_text": "beta"})]


def test_a_replacement_that_is_not_unique_changes_nothing():
    first = ask(user("replace `a` with `b` in f.txt"))
    (read,) = [b for b in first.content if isinstance(b, ToolUse)]
    reply = ask(user("replace `a` with `b` in f.txt"), *_answered(read, "    1\ta a\n"))
    assert tool_calls(reply) == [] and "changed nothing" in texts(reply)[0]


def test_paths_inside_an_attachment_are_not_read():
    attached = {"type": "text", "text": "Attached README.md:\n```\nSee docs/setup.md, src/app.py and Makefile.\n```"}
    reply = ask(user([attached, {"type": "text", "text": "summarise @README.md"}]))
    assert tool_calls(reply) == [], "README.md is attached; the paths inside it are not requests"
    (text,) = texts(reply)
    assert "**README.md** (attached) has 1 line." in text


def test_typed_paths_are_read_even_with_an_attachment():
    attached = {"type": "text", "text": "Attached README.md (lines 1-2):\n```\nsee other.py\n```"}
    reply = ask(user([attached, {"type": "text", "text": "compare it with setup.py"}]))
    assert tool_calls(reply) == [("read_file", {"path": "setup.py"})]


def test_one_line_is_one_line():
    """Issue 33.7: "1 lines" read oddly."""
    call = {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "README.md"}}
    reply = ask(user("read README.md"), {"role": "assistant", "content": [call]},
                user([{"type": "tool_result", "tool_use_id": "toolu_1", "content": "    1\thello"}]))
    assert "**README.md** has 1 line." in texts(reply)[0]
