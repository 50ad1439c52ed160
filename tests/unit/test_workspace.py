"""Workspace: resolution rules, multi-root, text I/O hooks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentls.agent.workspace import (
    FileTooLarge,
    NotTextFile,
    PathRefused,
    Workspace,
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "app.py").write_text("print('hi')\n")
    return ws.resolve()


def test_relative_paths_are_relative_to_the_first_root(root: Path) -> None:
    ws = Workspace([root])
    assert ws.resolve("src/app.py") == root / "src" / "app.py"
    assert ws.display(root / "src" / "app.py") == "src/app.py"
    assert ws.display(root) == "."


def test_multi_root_prefix_selects_the_root(tmp_path: Path, root: Path) -> None:
    other = tmp_path / "api"
    other.mkdir()
    (other / "main.go").write_text("package main\n")
    ws = Workspace([root, other])
    assert ws.resolve("api/main.go") == other.resolve() / "main.go"
    assert ws.resolve("src/app.py") == root / "src" / "app.py"  # no root named "src": first root
    assert ws.display(other.resolve() / "main.go") == "api/main.go"
    assert ws.display(root / "src" / "app.py") == "ws/src/app.py"
    assert ws.resolve(ws.display(root / "src" / "app.py")) == root / "src" / "app.py"  # round trip


def test_set_roots_changes_what_is_allowed(tmp_path: Path, root: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    ws = Workspace([root])
    with pytest.raises(PathRefused):
        ws.resolve(str(other / "x"))
    ws.set_roots([root, other])
    assert ws.resolve(str(other / "x")) == other.resolve() / "x"
    with pytest.raises(ValueError):
        ws.set_roots([])


def test_symlinked_root_is_compared_by_real_path(tmp_path: Path, root: Path) -> None:
    alias = tmp_path / "alias"
    os.symlink(root, alias)
    ws = Workspace([alias])
    assert ws.resolve(str(alias / "src" / "app.py")) == root / "src" / "app.py"
    assert ws.resolve("src/app.py") == root / "src" / "app.py"


def test_symlink_inside_pointing_inside_is_fine(root: Path) -> None:
    os.symlink(root / "src", root / "code")
    ws = Workspace([root])
    assert ws.resolve("code/app.py") == root / "src" / "app.py"


@settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],  # CI machines are busy
)
@given(parts=st.lists(st.sampled_from(["..", ".", "src", "x", "up", "out", "", "%2e%2e"]), min_size=1, max_size=6))
def test_resolved_paths_never_leave_the_root(tmp_path_factory: pytest.TempPathFactory, parts: list[str]) -> None:
    base = tmp_path_factory.getbasetemp() / "prop"
    ws_dir = base / "ws"
    if not ws_dir.exists():
        (ws_dir / "src").mkdir(parents=True)
        (base / "out").mkdir()
        os.symlink("..", ws_dir / "up")  # an intermediate directory link leading out
    ws = Workspace([ws_dir])
    try:
        real = ws.resolve("/".join(parts))
    except PathRefused:
        return
    assert real == ws_dir.resolve() or real.is_relative_to(ws_dir.resolve())


async def test_read_text_refuses_binary_and_non_utf8(root: Path) -> None:
    ws = Workspace([root])
    (root / "x.bin").write_bytes(b"\x89PNG\0\0\0data")
    (root / "latin.txt").write_bytes("café".encode("latin-1"))
    with pytest.raises(NotTextFile, match=r"x.bin is a binary file \(11 bytes\); not shown"):
        await ws.read_text(root / "x.bin")
    with pytest.raises(NotTextFile, match=r"latin.txt is not UTF-8 text"):
        await ws.read_text(root / "latin.txt")


async def test_read_text_refuses_huge_files(root: Path) -> None:
    ws = Workspace([root])
    ws.max_file_bytes = 10
    (root / "big.txt").write_text("x" * 11)
    with pytest.raises(FileTooLarge, match="too large"):
        await ws.read_text(root / "big.txt")


async def test_write_text_creates_parents_and_keeps_line_endings(root: Path) -> None:
    ws = Workspace([root])
    target = ws.resolve("new/deep/file.txt")
    await ws.write_text(target, "a\r\nb\r\n")
    assert target.read_bytes() == b"a\r\nb\r\n"
    assert await ws.read_text(target) == "a\r\nb\r\n"
    assert await ws.exists(target)
    assert await ws.is_dir(root / "new")
    assert [p.name for p in await ws.list_dir(root)] == ["new", "src"]


class BufferWorkspace(Workspace):
    def __init__(self, roots, docs):
        super().__init__(roots)
        self.docs = docs

    def open_documents(self) -> dict[Path, str]:
        return self.docs


async def test_open_documents_win_over_disk(root: Path) -> None:
    ws = BufferWorkspace([root], {root / "src" / "app.py": "unsaved\n", root / "draft.py": "new\n"})
    assert await ws.read_text(root / "src" / "app.py") == "unsaved\n"
    assert await ws.exists(root / "draft.py")  # open but never saved
    assert await ws.read_text(root / "draft.py") == "new\n"


async def test_default_apply_text_edit_writes_the_full_text(root: Path) -> None:
    ws = Workspace([root])
    path = root / "src" / "app.py"
    await ws.apply_text_edit(path, "'hi'", "'bye'", "print('bye')\n")
    assert path.read_text() == "print('bye')\n"
