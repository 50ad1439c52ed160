"""Issue 8, point 6: a symlink swapped in while the approval dialog is open does not carry the write out.

The approval callback below does what an attacker racing the user would:
while "the dialog is open" it replaces a folder (or the file) of the
approved path by a symlink leading out of the workspace, then approves.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from agentls.agent.approval import ApprovalRequest
from agentls.agent.tools import ToolContext, run_tool
from agentls.agent.workspace import PathRefused, Workspace


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "ws", tmp_path / "outside"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "file.txt").write_text("old\n")
    outside.mkdir()
    (outside / "file.txt").write_text("theirs\n")
    return root, outside


def _swapping(action):
    async def approve(request: ApprovalRequest) -> bool:
        action()
        return True

    return approve


def _swap_folder(root: Path, outside: Path):
    def swap() -> None:
        shutil.rmtree(root / "sub")
        os.symlink(outside, root / "sub")
    return swap


def _swap_file(root: Path, outside: Path):
    def swap() -> None:
        (root / "sub" / "file.txt").unlink()
        os.symlink(outside / "file.txt", root / "sub" / "file.txt")
    return swap


@pytest.mark.parametrize("swap", [_swap_folder, _swap_file])
@pytest.mark.parametrize("tool,args", [
    ("write_file", {"path": "sub/file.txt", "content": "pwned\n"}),
    ("edit_file", {"path": "sub/file.txt", "old_text": "old", "new_text": "pwned"}),
])
async def test_approved_write_never_lands_outside(places, swap, tool, args) -> None:
    root, outside = places
    ctx = ToolContext(Workspace([root]), _swapping(swap(root, outside)))
    out = await run_tool(tool, args, ctx)
    assert (outside / "file.txt").read_text() == "theirs\n"
    assert out.is_error and "symlink" in out.text, out.text


async def test_new_file_below_a_swapped_folder_is_refused(places) -> None:
    root, outside = places
    ctx = ToolContext(Workspace([root]), _swapping(_swap_folder(root, outside)))
    out = await run_tool("write_file", {"path": "sub/deeper/new.txt", "content": "x\n"}, ctx)
    assert out.is_error and not (outside / "deeper").exists()


async def test_plain_writes_and_links_inside_still_work(places) -> None:
    root, _ = places
    os.symlink(root / "sub" / "file.txt", root / "alias.txt")
    ctx = ToolContext(Workspace([root]), _swapping(lambda: None))
    created = await run_tool("write_file", {"path": "a/b/c.txt", "content": "new\n"}, ctx)
    assert not created.is_error and (root / "a" / "b" / "c.txt").read_text() == "new\n"
    through = await run_tool("edit_file", {"path": "alias.txt", "old_text": "old", "new_text": "new"}, ctx)
    assert not through.is_error and (root / "sub" / "file.txt").read_text() == "new\n"
    assert (root / "alias.txt").is_symlink()


def test_recheck_sees_a_swapped_folder(places) -> None:
    root, outside = places
    ws = Workspace([root])
    path = ws.resolve("sub/file.txt")
    ws.recheck(path)
    _swap_folder(root, outside)()
    with pytest.raises(PathRefused):
        ws.recheck(path)
