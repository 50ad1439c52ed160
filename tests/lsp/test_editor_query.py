"""agent/editorQuery against the real server: a test editor answers with canned language-server results.

Checks what reaches the model at the API endpoint: which tools are offered
(only the declared kinds), the compact path:line results, the column the
server found for a symbol name, and the errors an edit introduced.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

from agentls.mock_api import Reply, Text, ToolUse
from .helpers import options_for

EDITOR_TOOLS = {"get_diagnostics", "find_symbols", "go_to_definition", "find_references"}
APP_TS = ("import * as lib from './lib';\n\nconst 😀 = 1; lib.greet('a');\n"
          "export const n: number = lib.greet('b').length;\n")


def span(line: int, start: int, end: int | None = None) -> dict:
    return {"start": {"line": line, "character": start}, "end": {"line": line, "character": end or start + 1}}


def answer_queries(editor, answer: Callable[[dict], Any]) -> list[dict]:
    """Make the test editor answer agent/editorQuery with `answer(params)`; returns the recorded params."""
    asked: list[dict] = []

    @editor.client.feature("agent/editorQuery")
    async def editor_query(ls, params):
        asked.append(params)
        return answer(params)

    return asked


def offered_tools(mock_api) -> set[str]:
    return {tool["name"] for tool in mock_api.message_bodies[-1]["tools"]}


def tool_result(mock_api) -> dict:
    return mock_api.message_bodies[-1]["messages"][-1]["content"][0]


async def test_editor_tools_are_offered_only_for_the_declared_kinds(start_editor, mock_api):
    plain = await start_editor(options_for(mock_api))
    mock_api.script(Reply([Text("hi")]))
    await plain.request("agent/chat", {"prompt": "hello"})
    assert not offered_tools(mock_api) & EDITOR_TOOLS

    editor = await start_editor({**options_for(mock_api), "editorQueries": ["references", "diagnostics", "rename"]})
    mock_api.script(Reply([Text("hi")]))
    await editor.request("agent/chat", {"prompt": "hello"})
    names = [tool["name"] for tool in mock_api.message_bodies[-1]["tools"]]
    assert names[-2:] == ["get_diagnostics", "find_references"]  # stable order, after the core tools
    assert not {"find_symbols", "go_to_definition"} & set(names)


async def test_references_by_line_and_name_reach_the_model_as_path_line(start_editor, mock_api, workspace):
    (workspace / "lib.ts").write_text("export function greet(name: string) {\n  return 'hi ' + name;\n}\n")
    editor = await start_editor({**options_for(mock_api), "editorQueries": ["references"]})
    app = workspace / "app.ts"
    editor.open(app, APP_TS)  # the live buffer; the disk has no app.ts at all
    lib = (workspace / "lib.ts").as_uri()
    asked = answer_queries(editor, lambda params: {"locations": [
        {"uri": app.as_uri(), "range": span(3, 25, 30)}, {"uri": lib, "range": span(0, 16, 21)},
        {"uri": app.as_uri(), "range": span(2, 14, 19)}, {"uri": "file:///usr/lib/ts/lib.d.ts", "range": span(9, 0)}]})
    # the model is off by one: greet is on line 3, not 2
    mock_api.script(Reply([ToolUse("find_references", {"path": "app.ts", "line": 2, "symbol": "greet"})]),
                    Reply([Text("three call sites")]))

    await editor.request("agent/chat", {"prompt": "who calls greet?"})

    # 😀 is 2 UTF-16 units
    assert asked == [{"kind": "references", "uri": app.as_uri(), "position": {"line": 2, "character": 18}}]
    content = tool_result(mock_api)["content"]
    assert content.splitlines() == [
        "4 references to greet (from app.ts:3 (found on line 3, not 2)), declaration included:",
        "app.ts:3: const 😀 = 1; lib.greet('a');",
        "app.ts:4: export const n: number = lib.greet('b').length;",
        "lib.ts:1: export function greet(name: string) {",
        "/usr/lib/ts/lib.d.ts:10",
    ]


async def test_a_name_not_on_the_line_is_a_clear_error_without_asking_the_editor(start_editor, mock_api, workspace):
    editor = await start_editor({**options_for(mock_api), "editorQueries": ["definition"]})
    asked = answer_queries(editor, lambda params: {"locations": []})
    mock_api.script(Reply([ToolUse("go_to_definition", {"path": "app.py", "line": 1, "symbol": "nowhere"})]),
                    Reply([Text("ok")]))
    await editor.request("agent/chat", {"prompt": "where?"})
    result = tool_result(mock_api)
    assert asked == [] and result["is_error"] is True
    assert "'nowhere' is not on line 1 of app.py" in result["content"] and "def main():" in result["content"]


async def test_workspace_diagnostics_with_a_severity_filter(start_editor, mock_api, workspace):
    editor = await start_editor({**options_for(mock_api), "editorQueries": ["diagnostics"]})
    app = (workspace / "app.py").as_uri()
    asked = answer_queries(editor, lambda params: {"diagnostics": [
        {"uri": app, "range": span(1, 11), "severity": 2, "message": "unused\nvariable", "source": "pyright"},
        {"uri": app, "range": span(0, 4), "severity": 1, "message": "bad name", "source": "pyright", "code": "E1"},
        {"uri": "file:///elsewhere/x.py", "range": span(0, 0), "severity": 1, "message": "not ours"}]})
    mock_api.script(Reply([ToolUse("get_diagnostics", {"severity": "warning"})]), Reply([Text("ok")]))

    await editor.request("agent/chat", {"prompt": "what is broken?"})

    assert asked == [{"kind": "diagnostics", "severity": "warning"}]
    assert tool_result(mock_api)["content"].splitlines() == [
        "1 error, 1 warning in the workspace:",
        "app.py:1:5 error pyright(E1): bad name",
        "app.py:2:12 warning pyright: unused variable",
    ]


async def test_symbols_list_exact_matches_first(start_editor, mock_api, workspace):
    editor = await start_editor({**options_for(mock_api), "editorQueries": ["symbols"]})
    shapes = (workspace / "shapes.ts").as_uri()
    answer_queries(editor, lambda params: {"symbols": [
        {"name": "ShapeList", "kind": "Interface", "uri": shapes, "range": span(20, 0)},
        {"name": "Shape", "kind": "Class", "uri": shapes, "range": span(2, 0)},
        {"name": "area", "kind": "Method", "uri": shapes, "range": span(4, 2), "containerName": "Shape"}]})
    mock_api.script(Reply([ToolUse("find_symbols", {"query": "Shape"})]), Reply([Text("ok")]))
    await editor.request("agent/chat", {"prompt": "find Shape"})
    assert tool_result(mock_api)["content"].splitlines() == [
        "3 symbols for 'Shape' in the workspace:",
        "shapes.ts:3 class Shape", "shapes.ts:21 interface ShapeList", "shapes.ts:5 method Shape.area"]


async def test_an_editor_error_is_reported_to_the_model(start_editor, mock_api):
    editor = await start_editor({**options_for(mock_api), "editorQueries": ["symbols"]})

    def fail(params):
        raise RuntimeError("no symbol provider")

    answer_queries(editor, fail)
    mock_api.script(Reply([ToolUse("find_symbols", {"query": "Shape"})]), Reply([Text("ok")]))
    result = await editor.request("agent/chat", {"prompt": "find Shape"})
    told = tool_result(mock_api)
    assert result["text"] == "ok" and told["is_error"] is True
    assert told["content"].startswith("The editor could not list symbols:") and "no symbol provider" in told["content"]


async def test_an_edit_reports_the_errors_it_introduced(start_editor, mock_api, workspace):
    options = {**options_for(mock_api, approvals={"write": "always"}, diagnosticsWaitMs=1500),
               "editorQueries": ["diagnostics"]}
    editor = await start_editor(options)
    uri = editor.open(workspace / "app.ts", "let a: number = 1;\nlet b = undefinedName;\n")
    old_error = {"uri": uri, "range": span(1, 8), "severity": 1, "message": "Cannot find name 'undefinedName'.",
                 "source": "ts", "code": 2304}
    new_error = {"uri": uri, "range": span(0, 4), "severity": 1, "source": "ts", "code": 2322,
                 "message": "Type 'string' is not assignable to type 'number'."}

    def diagnostics(params):  # generation 7 before the edit; the edit's diagnostics are generation 8
        if "changedSince" in params:
            return {"diagnostics": [new_error, {**old_error, "range": span(1, 8)}], "generation": 8}
        return {"diagnostics": [old_error], "generation": 7}

    asked = answer_queries(editor, diagnostics)
    mock_api.script(Reply([ToolUse("edit_file", {"path": "app.ts", "old_text": "= 1;", "new_text": "= 'one';"})]),
                    Reply([Text("oops")]))

    await editor.request("agent/chat", {"prompt": "make a a string"})

    assert len(editor.edits) == 1
    assert asked == [{"kind": "diagnostics", "uri": uri, "severity": "error"},
                     {"kind": "diagnostics", "uri": uri, "severity": "error", "waitMs": 1500, "changedSince": 7}]
    assert tool_result(mock_api)["content"].splitlines() == [
        "Edited app.ts at line 1: -1 +1 lines.",
        "Applied; 1 new error:",
        "app.ts:1:5 error ts(2322): Type 'string' is not assignable to type 'number'.",
    ]


async def test_an_edit_of_a_file_not_open_in_the_editor_does_not_wait(start_editor, mock_api, workspace):
    editor = await start_editor({**options_for(mock_api, approvals={"write": "always"}),
                                 "editorQueries": ["diagnostics"]})
    asked = answer_queries(editor, lambda params: {"diagnostics": [], "generation": 0})
    mock_api.script(Reply([ToolUse("edit_file", {"path": "notes.md", "old_text": "42", "new_text": "43"})]),
                    Reply([Text("done")]))
    await editor.request("agent/chat", {"prompt": "edit"})
    assert tool_result(mock_api)["content"] == "Edited notes.md at line 2: -1 +1 lines."
    assert [p.get("waitMs") for p in asked] == [None]  # the snapshot only: no diagnostics come for a closed file
