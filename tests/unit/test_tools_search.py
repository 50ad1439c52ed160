"""grep_search and list_files over real trees: regex, glob, caps, .gitignore, live buffers."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentls.agent.approval import deny_all
from agentls.agent.tools import ToolContext, run_tool
from agentls.agent.workspace import Workspace
from synth import LiveWorkspace


@pytest.fixture
def root(tmp_path: Path) -> Path:
    files = {
        ".gitignore": "build/\n*.log\n!keep.log\n",
        "src/app.py": "import os\n\ndef main():\n    return os.getcwd()  # TODO tidy\n",
        "src/util.ts": "export const todo = 1; // TODO\n",
        "src/gen/.gitignore": "*.gen.py\n",
        "src/gen/model.gen.py": "TODO generated\n",
        "src/gen/real.py": "TODO real\n",
        "build/out.py": "TODO built\n",
        "debug.log": "TODO log\n",
        "keep.log": "TODO kept\n",
        ".git/config": "TODO git internals\n",
        "README.md": "# Project\nTODO docs\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\0TODO\0")
    return tmp_path


def _ctx(root: Path, **kw) -> ToolContext:
    return ToolContext(Workspace([root]), deny_all, **kw)


def _paths(text: str) -> set[str]:
    return {line.split(":", 1)[0] for line in text.splitlines() if not line.startswith("…")}


async def test_grep_respects_gitignore_binary_and_git(root: Path) -> None:
    out = await run_tool("grep_search", {"pattern": "TODO"}, _ctx(root))
    assert not out.is_error
    assert _paths(out.text) == {"src/app.py", "src/util.ts", "src/gen/real.py", "keep.log", "README.md"}
    assert "src/app.py:4:     return os.getcwd()  # TODO tidy" not in out.text  # text is stripped
    assert "src/app.py:4: return os.getcwd()  # TODO tidy" in out.text
    assert out.summary == "grep /TODO/ → 5 matches in 5 files"


async def test_grep_regex_glob_and_path(root: Path) -> None:
    ctx = _ctx(root)
    regex = await run_tool("grep_search", {"pattern": r"^def \w+\(\):$"}, ctx)
    assert regex.text == "src/app.py:3: def main():"
    py_only = await run_tool("grep_search", {"pattern": "TODO", "glob": "*.py"}, ctx)
    assert _paths(py_only.text) == {"src/app.py", "src/gen/real.py"}
    braces = await run_tool("grep_search", {"pattern": "TODO", "glob": "src/*.{py,ts}"}, ctx)
    assert _paths(braces.text) == {"src/app.py", "src/util.ts"}
    under = await run_tool("grep_search", {"pattern": "TODO", "path": "src/gen"}, ctx)
    assert _paths(under.text) == {"src/gen/real.py"}
    one_file = await run_tool("grep_search", {"pattern": "(?i)project", "path": "README.md"}, ctx)
    assert one_file.text == "README.md:1: # Project"
    none = await run_tool("grep_search", {"pattern": "nowhere to be found"}, ctx)
    assert not none.is_error and none.text.startswith("No matches")


async def test_grep_invalid_regex_is_a_clear_error(root: Path) -> None:
    out = await run_tool("grep_search", {"pattern": "foo(bar"}, _ctx(root))
    assert out.is_error
    assert out.text.startswith("Invalid regex 'foo(bar': missing ), unterminated subpattern")


async def test_grep_cap_reports_the_rest(root: Path) -> None:
    (root / "many.txt").write_text("hit\n" * 30)
    out = await run_tool("grep_search", {"pattern": "^hit$"}, _ctx(root, grep_cap=10))
    lines = out.text.splitlines()
    assert len(lines) == 11
    assert lines[-1].startswith("… 20 more matches")
    assert "30 matches in 1 file" in out.summary


async def test_grep_missing_path(root: Path) -> None:
    out = await run_tool("grep_search", {"pattern": "x", "path": "nope"}, _ctx(root))
    assert out.is_error and "nope does not exist" in out.text


async def test_grep_searches_live_buffers_instead_of_disk(root: Path) -> None:
    docs = {root / "src" / "app.py": "UNSAVED marker\n", root / "src" / "draft.py": "also UNSAVED\n"}
    ctx = ToolContext(LiveWorkspace([root], docs), deny_all)
    live = await run_tool("grep_search", {"pattern": "UNSAVED"}, ctx)
    assert live.text.splitlines() == ["src/app.py:1: UNSAVED marker", "src/draft.py:1: also UNSAVED"]
    disk = await run_tool("grep_search", {"pattern": "getcwd"}, ctx)
    assert disk.text.startswith("No matches")  # the buffer replaced the disk text


async def test_list_files_respects_gitignore(root: Path) -> None:
    out = await run_tool("list_files", {}, _ctx(root))
    assert out.text.splitlines() == [
        ".gitignore",
        "README.md",
        "keep.log",
        "logo.png",
        "src/",
        "src/app.py",
        "src/gen/",
        "src/gen/.gitignore",
        "src/gen/real.py",
        "src/util.ts",
    ]
    assert out.summary == "Listed . (10 entries)"


async def test_list_files_subfolder_still_uses_root_rules(root: Path) -> None:
    (root / "src" / "trace.log").write_text("x")
    out = await run_tool("list_files", {"path": "src"}, _ctx(root))
    assert "src/trace.log" not in out.text and "src/app.py" in out.text


async def test_list_files_cap_and_errors(root: Path) -> None:
    ctx = _ctx(root)
    capped = await run_tool("list_files", {"max_entries": 3}, ctx)
    assert capped.text.splitlines()[-1].startswith("… 7 more entries")
    single = await run_tool("list_files", {"path": "README.md"}, ctx)
    assert single.text == "README.md"
    missing = await run_tool("list_files", {"path": "nope"}, ctx)
    assert missing.is_error and "does not exist" in missing.text


async def test_list_files_multi_root(tmp_path: Path) -> None:
    for name in ("web", "api"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "main.txt").write_text(name)
    ctx = ToolContext(Workspace([tmp_path / "web", tmp_path / "api"]), deny_all)
    out = await run_tool("list_files", {}, ctx)
    assert out.text.splitlines() == ["web/", "web/main.txt", "api/", "api/main.txt"]
    read = await run_tool("read_file", {"path": "api/main.txt"}, ctx)
    assert read.text == "    1\tapi"


async def test_walks_skip_symlinks_leading_out(tmp_path: Path) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("SECRET\n")
    (ws / "own.txt").write_text("SECRET copy\n")
    (ws / "out_dir").symlink_to(outside)
    (ws / "out_file").symlink_to(outside / "secret.txt")
    (ws / "in_link").symlink_to(ws / "own.txt")
    ctx = ToolContext(Workspace([ws]), deny_all)
    listing = await run_tool("list_files", {}, ctx)
    assert listing.text.splitlines() == ["in_link", "own.txt"]
    found = await run_tool("grep_search", {"pattern": "SECRET"}, ctx)
    assert found.text == "own.txt:1: SECRET copy"  # in_link is the same file: searched once


async def test_other_agent_clients_transcripts_are_left_out_unless_asked_for(root: Path) -> None:
    """Issue 32: agent-shell keeps its transcripts in the workspace (.agent-shell/transcripts/); a search
    matched the conversation about the code. Left out like .git, by a default a .ignore line changes."""
    transcript = root / ".agent-shell" / "transcripts" / "2026-12-05-10-00-00.md"
    transcript.parent.mkdir(parents=True)
    transcript.write_text("agent: I found the TODO in src/app.py\n")
    ctx = _ctx(root)
    found = await run_tool("grep_search", {"pattern": "TODO"}, ctx)
    assert ".agent-shell/transcripts/2026-12-05-10-00-00.md" not in _paths(found.text)
    listed = await run_tool("list_files", {}, ctx)
    assert not any(line.startswith(".agent-shell") for line in listed.text.splitlines())
    asked = await run_tool("list_files", {"path": ".agent-shell/transcripts"}, ctx)  # named: listed
    assert asked.text.splitlines() == [".agent-shell/transcripts/2026-12-05-10-00-00.md"]

    (root / ".ignore").write_text("!/.agent-shell/\n")  # the user wants them searched
    again = await run_tool("grep_search", {"pattern": "TODO"}, _ctx(root))
    assert ".agent-shell/transcripts/2026-12-05-10-00-00.md" in _paths(again.text)
