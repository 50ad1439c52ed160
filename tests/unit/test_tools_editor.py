"""Editor tools over a scripted editor: which tools run, the column search, the new-errors note, settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentls.agent.approval import auto_approve
from agentls.agent.tools import ToolContext, run_tool, tool_definitions
from agentls.agent.tools.editor import EditorQueryError
from agentls.agent.workspace import Workspace
from agentls.lsp.editor_query import declared_kinds
from agentls.agent.settings import parse_settings
from agentls.lsp import protocol


class ScriptedEditor:
    """Answers queries from a function; records them."""

    def __init__(self, answer, kinds=("diagnostics", "symbols", "definition", "references", "hover"), wait=1.0):
        self.kinds, self.answer, self.asked, self._wait = frozenset(kinds), answer, [], wait

    @property
    def diagnostics_wait(self) -> float:
        return self._wait

    async def query(self, query):
        params = protocol.editor_query_params(query)  # as the editor would receive it
        self.asked.append(params)
        return self.answer(params)


class OpenWorkspace(Workspace):
    """Every file counts as open in the editor (its diagnostics are live)."""

    def live_text(self, path: Path) -> str | None:
        return path.read_text() if path.exists() else None


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "lib.ts").write_text("export function greet() {}\n\n\nconst x = 1;\n")
    return tmp_path


def ctx(root: Path, editor, workspace=Workspace) -> ToolContext:
    return ToolContext(workspace([root]), auto_approve, editor=editor)


def span(line: int, col: int = 0) -> dict:
    return {"start": {"line": line, "character": col}, "end": {"line": line, "character": col + 1}}


def test_editor_tools_follow_the_declared_kinds() -> None:
    core = [d["name"] for d in tool_definitions()]
    assert [d["name"] for d in tool_definitions(["references", "symbols"])] == [*core, "find_symbols", "find_references"]
    assert declared_kinds(["hover", "rename", "diagnostics"]) == (frozenset({"hover", "diagnostics"}), [])
    assert declared_kinds({}) == (frozenset(), [])  # Lua's empty table
    assert declared_kinds("diagnostics")[1] == ["initializationOptions.editorQueries must be a list of strings; ignored"]


async def test_an_undeclared_editor_tool_is_unknown(root: Path) -> None:
    editor = ScriptedEditor(lambda p: {}, kinds=["diagnostics"])
    out = await run_tool("find_references", {"path": "lib.ts", "line": 1, "symbol": "greet"}, ctx(root, editor))
    assert out.is_error and "Unknown tool 'find_references'" in out.text and editor.asked == []
    out = await run_tool("get_diagnostics", {}, ctx(root, None))
    assert out.is_error and "Unknown tool" in out.text


async def test_the_name_is_looked_for_on_nearby_lines_above_first(root: Path) -> None:
    editor = ScriptedEditor(lambda p: {"locations": [{"uri": (root / "lib.ts").as_uri(), "range": span(0, 16)}]})
    out = await run_tool("go_to_definition", {"path": "lib.ts", "line": 3, "symbol": "greet"}, ctx(root, editor))
    assert editor.asked[0]["position"] == {"line": 0, "character": 16}
    assert out.text.splitlines()[0] == "Definition of greet at lib.ts:1 (found on line 1, not 3):"
    assert editor.asked[1]["kind"] == "hover"  # declared: the signature is asked for too


async def test_a_failing_hover_does_not_lose_the_definition(root: Path) -> None:
    def answer(params):
        if params["kind"] == "hover":
            raise EditorQueryError("hover crashed")
        return {"locations": [{"uri": (root / "lib.ts").as_uri(), "range": span(0, 16)}]}

    out = await run_tool("go_to_definition", {"path": "lib.ts", "line": 1, "symbol": "greet"}, ctx(root, ScriptedEditor(answer)))
    assert not out.is_error and out.text.splitlines()[1] == "lib.ts:1: export function greet() {}"


async def test_a_client_without_generations_is_asked_once_more_without_waiting_on_it(root: Path) -> None:
    uri = (root / "lib.ts").as_uri()
    answers = iter([{"diagnostics": []}, {"diagnostics": [
        {"uri": uri, "range": span(3, 6), "severity": 1, "message": "'x' is never reassigned", "source": "lint"}]}])
    editor = ScriptedEditor(lambda p: next(answers), kinds=["diagnostics"], wait=0.5)
    out = await run_tool("edit_file", {"path": "lib.ts", "old_text": "const x = 1;", "new_text": "let x = 1;"},
                         ctx(root, editor, OpenWorkspace))
    assert "changedSince" not in editor.asked[1] and editor.asked[1]["waitMs"] == 500
    assert out.text.splitlines()[1:] == ["Applied; 1 new error:", "lib.ts:4:7 error lint: 'x' is never reassigned"]


async def test_no_new_errors_says_so_and_whether_the_diagnostics_moved(root: Path) -> None:
    editor = ScriptedEditor(lambda p: {"diagnostics": [], "generation": 3}, kinds=["diagnostics"])
    out = await run_tool("write_file", {"path": "lib.ts", "content": "export {};\n"}, ctx(root, editor, OpenWorkspace))
    assert out.text.endswith("Applied; no new errors in this file (its diagnostics did not change within 1s).")


async def test_waiting_is_off_with_a_zero_wait(root: Path) -> None:
    editor = ScriptedEditor(lambda p: {"diagnostics": []}, kinds=["diagnostics"], wait=0)
    out = await run_tool("write_file", {"path": "lib.ts", "content": "export {};\n"}, ctx(root, editor, OpenWorkspace))
    assert editor.asked == [] and out.text == "Wrote lib.ts (1 line; -4 +1)."


def test_the_wait_setting_is_bounded() -> None:
    assert parse_settings({"diagnosticsWaitMs": 0})[0].diagnostics_wait() == 0
    assert parse_settings({})[0].diagnostics_wait() == 2000
    settings, problems = parse_settings({"diagnosticsWaitMs": 600_000})
    assert settings.diagnostics_wait() == 2000
    assert problems == ["settings.diagnosticsWaitMs must be an integer from 0 to 60,000"]
