"""edit_file and write_file: exact-match rules, approval diffs, editor rejection."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentls.agent.approval import ApprovalRequest, auto_approve
from agentls.agent.tools import ToolContext, run_tool
from agentls.agent.workspace import EditRejected, Workspace

SOURCE = "def a():\n    return 1\n\ndef b():\n    return 1\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "m.py").write_text(SOURCE)
    return tmp_path


def _ctx(root: Path, approve=auto_approve) -> ToolContext:
    return ToolContext(Workspace([root]), approve)


async def _edit(root: Path, old: str, new: str, **kw):
    return await run_tool("edit_file", {"path": "m.py", "old_text": old, "new_text": new}, _ctx(root, **kw))


async def test_single_match_is_replaced(root: Path) -> None:
    out = await _edit(root, "def b():\n    return 1", "def b():\n    return 2\n    # done")
    assert not out.is_error
    assert (root / "m.py").read_text() == SOURCE.replace("def b():\n    return 1", "def b():\n    return 2\n    # done")
    assert out.text == "Edited m.py at line 4: -1 +2 lines."
    assert out.summary == "Edited m.py (+2 −1)"


async def test_no_match_suggests_rereading(root: Path) -> None:
    out = await _edit(root, "return 3", "return 4")
    assert out.is_error and "not found in m.py" in out.text and "read_file" in out.text
    assert (root / "m.py").read_text() == SOURCE


async def test_two_matches_say_how_many(root: Path) -> None:
    out = await _edit(root, "return 1", "return 2")
    assert out.is_error and "matches 2 places" in out.text
    assert (root / "m.py").read_text() == SOURCE


async def test_overlapping_matches_count_as_ambiguous(root: Path) -> None:
    (root / "m.py").write_text("aaa\n")
    out = await _edit(root, "aa", "b")
    assert out.is_error and "matches 2 places" in out.text


async def test_empty_and_identical_texts_are_refused(root: Path) -> None:
    assert "write_file" in (await _edit(root, "", "x")).text
    assert "identical" in (await _edit(root, "return 1", "return 1")).text
    assert (root / "m.py").read_text() == SOURCE


async def test_crlf_file_accepts_lf_old_text(root: Path) -> None:
    (root / "m.py").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    out = await _edit(root, "one\ntwo", "1\n2")
    assert not out.is_error
    assert (root / "m.py").read_bytes() == b"1\r\n2\r\nthree\r\n"


async def test_approval_sees_the_diff(root: Path) -> None:
    seen: list[ApprovalRequest] = []

    async def approve(request: ApprovalRequest) -> bool:
        seen.append(request)
        return True

    await _edit(root, "def a():\n    return 1", "def a():\n    return 0", approve=approve)
    (request,) = seen
    assert request.kind == "edit" and request.path == "m.py"
    assert "-    return 1\n+    return 0\n" in request.diff


class RejectingWorkspace(Workspace):
    async def apply_text_edit(self, path, old_text, new_text, new_full_text) -> None:
        raise EditRejected("the document changed since it was read")


async def test_editor_rejection_is_reported(root: Path) -> None:
    ctx = ToolContext(RejectingWorkspace([root]), auto_approve)
    out = await run_tool("edit_file", {"path": "m.py", "old_text": "def a", "new_text": "def z"}, ctx)
    assert out.is_error
    assert out.text == "The editor rejected the edit: the document changed since it was read"
    assert (root / "m.py").read_text() == SOURCE


async def test_edit_of_binary_or_missing_file(root: Path) -> None:
    (root / "x.bin").write_bytes(b"a\0b")
    binary = await run_tool("edit_file", {"path": "x.bin", "old_text": "a", "new_text": "b"}, _ctx(root))
    assert binary.is_error and "binary file" in binary.text
    missing = await run_tool("edit_file", {"path": "no.py", "old_text": "a", "new_text": "b"}, _ctx(root))
    assert missing.is_error and "does not exist" in missing.text


async def test_write_creates_parents_and_reports(root: Path) -> None:
    out = await run_tool("write_file", {"path": "pkg/sub/new.py", "content": "x = 1\ny = 2\n"}, _ctx(root))
    assert not out.is_error and out.summary == "Created pkg/sub/new.py (2 lines)"
    assert (root / "pkg" / "sub" / "new.py").read_text() == "x = 1\ny = 2\n"


async def test_write_overwrites_with_a_diff(root: Path) -> None:
    seen: list[ApprovalRequest] = []

    async def approve(request: ApprovalRequest) -> bool:
        seen.append(request)
        return True

    out = await run_tool("write_file", {"path": "m.py", "content": "pass\n"}, _ctx(root, approve=approve))
    assert not out.is_error and out.summary == "Wrote m.py (1 line)"
    assert seen[0].kind == "write" and "+pass\n" in seen[0].diff and "-def a():\n" in seen[0].diff
    same = await run_tool("write_file", {"path": "m.py", "content": "pass\n"}, _ctx(root, approve=approve))
    assert "nothing written" in same.text and len(seen) == 1  # no prompt for a no-op


async def test_write_refuses_directories_and_binary_targets(root: Path) -> None:
    (root / "d").mkdir()
    (root / "x.bin").write_bytes(b"\0\1")
    folder = await run_tool("write_file", {"path": "d", "content": "x"}, _ctx(root))
    assert folder.is_error and "is a directory" in folder.text
    binary = await run_tool("write_file", {"path": "x.bin", "content": "x"}, _ctx(root))
    assert binary.is_error and "Not overwriting" in binary.text
    assert (root / "x.bin").read_bytes() == b"\0\1"
