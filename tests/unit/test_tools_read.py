"""read_file: ranges, numbering, refusals of non-text, context:// refs, live buffers."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentls.agent.approval import deny_all
from agentls.agent.tools import TOOLS, ToolContext, run_tool, tool_definitions
from agentls.agent.workspace import Workspace
from synth import LiveWorkspace


class DictStore(dict):
    """The smallest ResultStore: a dict already has get(ref)."""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("".join(f"line {n}\n" for n in range(1, 13)))
    return tmp_path


def _ctx(root: Path, **kw) -> ToolContext:
    return ToolContext(Workspace([root]), deny_all, **kw)


async def test_whole_file_with_line_numbers(root: Path) -> None:
    out = await run_tool("read_file", {"path": "src/app.py"}, _ctx(root))
    assert not out.is_error
    lines = out.text.splitlines()
    assert lines[0] == "    1\tline 1"
    assert lines[11] == "   12\tline 12"
    assert len(lines) == 12
    assert out.summary == "Read src/app.py (12 lines)"


async def test_inclusive_range(root: Path) -> None:
    out = await run_tool("read_file", {"path": "src/app.py", "start_line": 3, "end_line": 5}, _ctx(root))
    assert out.text == "    3\tline 3\n    4\tline 4\n    5\tline 5"
    assert out.summary == "Read src/app.py:3-5"
    tail = await run_tool("read_file", {"path": "src/app.py", "start_line": 11, "end_line": 99}, _ctx(root))
    assert tail.text.splitlines() == ["   11\tline 11", "   12\tline 12"]


@pytest.mark.parametrize(
    "args, message",
    [
        ({"start_line": 13}, "past the end of the file (12 lines)"),
        ({"start_line": 5, "end_line": 4}, "end_line (4) is before start_line (5)"),
        ({"start_line": 0}, "must be >= 1"),
        ({"start_line": "3"}, "must be of type integer"),
    ],
)
async def test_bad_ranges(root: Path, args: dict, message: str) -> None:
    out = await run_tool("read_file", {"path": "src/app.py", **args}, _ctx(root))
    assert out.is_error and message in out.text


async def test_line_numbers_follow_editor_line_breaks(root: Path) -> None:
    (root / "ff.txt").write_text("a\fstill a\r\nb\rc")  # form feed is not a line break for an editor
    out = await run_tool("read_file", {"path": "ff.txt"}, _ctx(root))
    assert out.text.split("\n") == ["    1\ta\fstill a", "    2\tb", "    3\tc"]


async def test_binary_and_non_utf8_are_not_shown(root: Path) -> None:
    (root / "x.bin").write_bytes(b"GIF89a\0\1\2\3")
    (root / "latin.txt").write_bytes("naïve".encode("latin-1"))
    binary = await run_tool("read_file", {"path": "x.bin"}, _ctx(root))
    assert binary.is_error and binary.text == "x.bin is a binary file (10 bytes); not shown"
    latin = await run_tool("read_file", {"path": "latin.txt"}, _ctx(root))
    assert latin.is_error and "latin.txt is not UTF-8 text" in latin.text


async def test_missing_file_directory_and_empty_file(root: Path) -> None:
    missing = await run_tool("read_file", {"path": "nope.py"}, _ctx(root))
    assert missing.is_error and "nope.py does not exist" in missing.text
    folder = await run_tool("read_file", {"path": "src"}, _ctx(root))
    assert folder.is_error and "is a directory" in folder.text
    (root / "empty.txt").write_text("")
    empty = await run_tool("read_file", {"path": "empty.txt"}, _ctx(root))
    assert not empty.is_error and "empty" in empty.text


async def test_output_cap_stops_at_a_line_and_says_where_to_go_on(root: Path) -> None:
    (root / "long.txt").write_text("".join(f"{'x' * 90}\n" for _ in range(100)))
    out = await run_tool("read_file", {"path": "long.txt"}, _ctx(root, output_cap=1000))
    assert len(out.text) < 1200
    assert "read on with start_line=" in out.text


async def test_context_refs_read_back_from_the_store(root: Path) -> None:
    store = DictStore({"context://toolu_1": "full\nold\nresult"})
    ctx = _ctx(root, store=store)
    out = await run_tool("read_file", {"path": "context://toolu_1"}, ctx)
    assert not out.is_error and out.text == "full\nold\nresult"
    part = await run_tool("read_file", {"path": "context://toolu_1", "start_line": 2, "end_line": 2}, ctx)
    assert part.text == "old"
    unknown = await run_tool("read_file", {"path": "context://toolu_9"}, ctx)
    assert unknown.is_error and "context://toolu_9" in unknown.text
    no_store = await run_tool("read_file", {"path": "context://toolu_1"}, _ctx(root))
    assert no_store.is_error


async def test_open_buffer_is_read_instead_of_disk(root: Path) -> None:
    ws = LiveWorkspace([root], {root / "src" / "app.py": "unsaved edit\n"})
    out = await run_tool("read_file", {"path": "src/app.py"}, ToolContext(ws, deny_all))
    assert out.text == "    1\tunsaved edit"


async def test_registry_and_input_checking(root: Path) -> None:
    names = [d["name"] for d in tool_definitions()]
    assert names == list(TOOLS) and set(names) == {
        "read_file", "grep_search", "list_files", "run_shell", "edit_file", "write_file", "todo_write"
    }
    for definition in tool_definitions():
        assert definition["description"] and definition["input_schema"]["type"] == "object"
    tool_definitions()[-1]["cache_control"] = {"type": "ephemeral"}
    assert "cache_control" not in tool_definitions()[-1]  # callers get copies
    unknown = await run_tool("delete_everything", {}, _ctx(root))
    assert unknown.is_error and "Unknown tool" in unknown.text
    missing = await run_tool("read_file", {}, _ctx(root))
    assert missing.is_error and "missing required field 'path'" in missing.text
    not_object = await run_tool("read_file", ["src/app.py"], _ctx(root))
    assert not_object.is_error
