"""Every way out of the workspace must be refused, by resolve() and by every path-taking tool."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentls.agent.approval import ApprovalRequest
from agentls.agent.tools import ToolContext, run_tool
from agentls.agent.workspace import PathRefused, Workspace

SECRET = "TOP SECRET\n"

# {tmp} is replaced by the test's tmp_path; the root is {tmp}/ws.
ESCAPES = [
    "..",
    "../..",
    "../outside/secret.txt",
    "a/../../outside/secret.txt",
    "sub/../../outside/secret.txt",
    "sub/../..",
    "./../outside/secret.txt",
    "/etc/passwd",
    "/",
    "{tmp}/outside/secret.txt",
    "{tmp}/ws/../outside/secret.txt",
    "~",
    "~/x",
    "~root/.bashrc",
    "link_file",  # symlink file → outside
    "link_dir",  # symlinked directory → outside
    "link_dir/secret.txt",
    "link_dir/new.txt",  # a write target behind a symlinked directory
    "chain1",  # chain1 → chain2 → outside
    "sub/uplink/outside/secret.txt",  # intermediate directory symlink → tmp
    "dangling",  # dangling symlink → a not-yet-existing file outside
    "loop1",  # symlink loop
    "{tmp}/ws2/secret.txt",  # sibling sharing the root's name as a prefix
    "../ws2/secret.txt",
    "",
    "   ",
    "sub\0/../secret.txt",
    "%2e%2e/outside/secret.txt",
    "..%2f..%2foutside%2fsecret.txt",
    "..\\..\\outside\\secret.txt",
]


@pytest.fixture
def layout(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    (ws / "inside.txt").write_text("inside\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    (tmp_path / "ws2").mkdir()
    (tmp_path / "ws2" / "secret.txt").write_text(SECRET)
    os.symlink(outside / "secret.txt", ws / "link_file")
    os.symlink(outside, ws / "link_dir")
    os.symlink(outside / "secret.txt", ws / "chain2")
    os.symlink(ws / "chain2", ws / "chain1")
    os.symlink("../..", ws / "sub" / "uplink")
    os.symlink(outside / "new.txt", ws / "dangling")
    os.symlink("loop2", ws / "loop1")
    os.symlink("loop1", ws / "loop2")
    return tmp_path


def _path(template: str, tmp: Path) -> str:
    return template.replace("{tmp}", str(tmp))


def _outside_untouched(tmp: Path) -> None:
    assert (tmp / "outside" / "secret.txt").read_text() == SECRET
    assert (tmp / "ws2" / "secret.txt").read_text() == SECRET
    assert sorted(p.name for p in (tmp / "outside").iterdir()) == ["secret.txt"]


@pytest.mark.parametrize("template", ESCAPES)
def test_resolve_refuses(layout: Path, template: str) -> None:
    ws = Workspace([layout / "ws"])
    with pytest.raises(PathRefused) as info:
        ws.resolve(_path(template, layout))
    assert str(info.value).startswith("refused: ")


@pytest.mark.parametrize("template", ESCAPES)
@pytest.mark.parametrize(
    "tool, extra",
    [
        ("read_file", {}),
        ("write_file", {"content": "pwned\n"}),
        ("edit_file", {"old_text": "TOP SECRET", "new_text": "pwned"}),
        ("list_files", {}),
        ("grep_search", {"pattern": "SECRET"}),
    ],
)
async def test_tools_refuse(layout: Path, template: str, tool: str, extra: dict) -> None:
    asked: list[ApprovalRequest] = []

    async def approve_everything(request: ApprovalRequest) -> bool:
        asked.append(request)
        return True

    ctx = ToolContext(Workspace([layout / "ws"]), approve_everything)
    out = await run_tool(tool, {"path": _path(template, layout), **extra}, ctx)
    assert out.is_error
    assert "refused" in out.text
    assert "TOP SECRET" not in out.text
    assert asked == []  # refused before anyone is even asked
    _outside_untouched(layout)


def test_inside_paths_still_resolve(layout: Path) -> None:
    ws = Workspace([layout / "ws"])
    root = (layout / "ws").resolve()
    assert ws.resolve(".") == root
    assert ws.resolve("sub/../inside.txt") == root / "inside.txt"
    assert ws.resolve(str(root / "inside.txt")) == root / "inside.txt"
    assert ws.resolve("sub/new/deeper.txt") == root / "sub" / "new" / "deeper.txt"
    # Percent signs are fine as long as they do not encode '..' or a separator.
    assert ws.resolve("report%20v2.txt") == root / "report%20v2.txt"
