"""The safety net under pressure (issue 30, findings 4–8): links, two windows, what is stored, odd names.

Real parts throughout: the agent against the mock model, real files, the session store; the rewind is
the one the front ends call (Agent.rewind with a confirm callback).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import threading
from pathlib import Path

import pytest

from agentls.agent.checkpoints import restore as restore_module
from agentls.agent.checkpoints.manager import Checkpoints
from agentls.agent.checkpoints.model import RewindPlan
from agentls.mock_api import Reply, Text, ToolUse
from forkserver import agentls_command


class Asked:
    """A confirm callback that answers yes and keeps what it was asked."""

    def __init__(self, agent, answer: bool = True) -> None:
        self.agent, self.answer, self.questions = agent, answer, []

    async def __call__(self, plan: RewindPlan) -> bool:
        manager: Checkpoints = self.agent.require_checkpoints()
        self.questions.append("".join(manager.diff_text(f.path, f.current, f.target) for f in plan.conflicts))
        return self.answer


async def turn(agent, mock_api, prompt: str, *tools: ToolUse) -> str:
    """One turn running `tools`; the id of its checkpoint."""
    mock_api.script(Reply(list(tools)), Reply([Text("done")]))
    await agent.run_turn(prompt)
    return (await agent.checkpoints.all())[-1].id


@pytest.mark.parametrize("out_of_workspace", [False, True], ids=["link-inside", "and-a-link-outside"])
async def test_a_rewind_never_writes_through_a_link_and_its_undo_brings_the_links_back(
        make_agent, mock_api, workspace, tmp_path, out_of_workspace):
    readme = workspace / "README.md"
    readme.write_text("# The user's README, never touched by the agent\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("a file outside the workspace\n")
    agent = make_agent()
    first = await turn(agent, mock_api, "write three files",
                       ToolUse("write_file", {"path": "a.md", "content": "agent a\n"}),
                       ToolUse("write_file", {"path": "b.md", "content": "agent b\n"}),
                       ToolUse("write_file", {"path": "c.md", "content": "agent c\n"}))
    # Outside the agent, files it wrote become links: to README.md (and one out of the workspace).
    links = {"a.md": "README.md", **({"b.md": str(outside)} if out_of_workspace else {})}
    for name, target in links.items():
        (workspace / name).unlink()
        (workspace / name).symlink_to(target)

    asked = Asked(agent)
    result = await agent.rewind(first, "code", asked)

    assert readme.read_text() == "# The user's README, never touched by the agent\n"
    assert outside.read_text() == "a file outside the workspace\n"
    assert sorted(result.restored) == ["a.md", "b.md", "c.md"]  # the links themselves are removed, not followed
    assert not any((workspace / n).exists() or (workspace / n).is_symlink() for n in ("a.md", "b.md", "c.md"))
    (question,) = asked.questions
    assert "symbolic link" in question and "binary or too large" not in question
    assert "README.md" in question

    undo = await agent.rewind(result.undo, "code", Asked(agent))
    assert sorted(undo.restored) == ["a.md", "b.md", "c.md"]
    assert {name: os.readlink(workspace / name) for name in links} == links
    for name in sorted({"b.md", "c.md"} - set(links)):
        assert (workspace / name).read_text() == f"agent {name[0]}\n"
    assert readme.read_text() == "# The user's README, never touched by the agent\n"


async def test_a_rewind_under_a_linked_folder_restores_the_rest_and_names_what_it_cannot(
        make_agent, mock_api, workspace, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "guide.md").write_text("someone else's guide\n")
    (workspace / "docs").mkdir()
    (workspace / "docs" / "guide.md").write_text("# Guide\n")
    agent = make_agent()
    first = await turn(agent, mock_api, "change two files",
                       ToolUse("write_file", {"path": "docs/guide.md", "content": "# Agent's guide\n"}),
                       ToolUse("edit_file", {"path": "app.py", "old_text": "'hello'", "new_text": "'hi'"}))
    (workspace / "docs" / "guide.md").unlink()
    (workspace / "docs").rmdir()
    (workspace / "docs").symlink_to(elsewhere)  # the folder now leads out of the workspace

    result = await agent.rewind(first, "code", Asked(agent))

    assert result.restored == ["app.py"] and (workspace / "app.py").read_text() == "def main():\n    return 'hello'\n"
    assert [(s.path, "symbolic link" in s.reason) for s in result.cannot] == [("docs/guide.md", True)]
    assert (elsewhere / "guide.md").read_text() == "someone else's guide\n"


async def test_two_windows_rewinding_at_once_each_restore_exactly_what_they_report(
        make_agent, mock_api, workspace, monkeypatch):
    for i in range(300):
        (workspace / f"f{i}.txt").write_text(f"old {i}\n")
    window_a, window_b = make_agent(), make_agent()  # two windows, two sessions, one workspace
    first_a = await turn(window_a, mock_api, "rewrite 300 files",
                         ToolUse("run_shell", {"command": "for i in $(seq 0 299); do echo agent $i > f$i.txt; done"}))
    first_b = await turn(window_b, mock_api, "write one file",
                         ToolUse("write_file", {"path": "b.txt", "content": "window b\n"}))

    # A's restore stops half way through its temporary files (restore.py's test hook) while B rewinds.
    half_way, go_on = threading.Event(), threading.Event()

    def pause_a(step: str, count: int) -> None:
        if step == "prepare" and count == 150 and not half_way.is_set():
            half_way.set()
            go_on.wait(60)

    monkeypatch.setattr(restore_module, "_fault", pause_a)
    rewind_a = asyncio.ensure_future(window_a.rewind(first_a, "code", Asked(window_a)))
    assert await asyncio.to_thread(half_way.wait, 60)
    result_b = await window_b.rewind(first_b, "code", Asked(window_b))
    go_on.set()
    result_a = await rewind_a

    assert result_b.restored == ["b.txt"] and not (workspace / "b.txt").exists()
    assert len(result_a.restored) == 300 and result_a.cannot == []
    wrong = [p for p in result_a.restored if (workspace / p).read_text() != f"old {p[1:-4]}\n"]
    assert wrong == [], f"{len(wrong)} files reported restored still hold the agent's text"


async def test_a_shell_rm_of_ignored_files_is_named_like_the_other_changes_a_rewind_cannot_undo(
        make_agent, mock_api, workspace):
    (workspace / ".gitignore").write_text(".env\nbuild/\n")
    (workspace / ".env").write_text("TOKEN=the user's only copy\n")
    (workspace / "build").mkdir()
    (workspace / "build" / "app.bin").write_bytes(b"\0built")
    agent = make_agent()
    events = []
    mock_api.script(Reply([ToolUse("run_shell", {"command": "rm -rf .env build && echo x >> app.py && mkdir -p "
                                                            "build/cache && echo made > build/cache/new.o"})]),
                    Reply([Text("cleaned")]))
    # An ignored folder counts by its inode only; one removed and made again at once may get the same number
    # back (it did, now and then, on a busy machine) and then looks untouched, a known limit. Holding the old
    # folder open keeps its inode taken, so the new one is told apart, as it is whenever the number moves on.
    held = os.open(workspace / "build", os.O_RDONLY)
    try:
        await agent.run_turn("clean up", events.append)
    finally:
        os.close(held)

    (taken,) = [e for e in events if type(e).__name__ == "CheckpointTaken"]
    assert [f.path for f in taken.files] == ["app.py"]
    assert [(s.path, s.change, "ignored" in s.reason) for s in taken.skipped] == [
        (".env", "deleted", True), ("build/", "modified", True)]  # build/ removed (made again: not the same)

    mock_api.script(Reply([ToolUse("run_shell", {"command": "touch .env"})]), Reply([Text("made")]))
    events.clear()
    await agent.run_turn("make an ignored file", events.append)
    assert not [e for e in events if type(e).__name__ == "CheckpointTaken"]  # a new ignored file loses nothing


@pytest.mark.parametrize("gitignore", [True, False], ids=["with-gitignore", "without-gitignore"])
async def test_a_file_name_that_is_not_utf8_breaks_no_tool_and_no_checkpoint(make_agent, mock_api, workspace,
                                                                            gitignore):
    if gitignore:
        (workspace / ".gitignore").write_text("*.log\n")
    odd = os.fsencode(workspace) + b"/caf\xe9-latin1.txt"  # a name written by a Latin-1 tool
    with open(odd, "wb") as file:
        file.write(b"the answer is 42 here too\n")
    agent = make_agent()
    mock_api.script(
        Reply([ToolUse("write_file", {"path": "new.md", "content": "# New\n"}),
               ToolUse("edit_file", {"path": "app.py", "old_text": "'hello'", "new_text": "'hi'"}),
               ToolUse("run_shell", {"command": "echo shell > shell.txt"}),
               ToolUse("list_files", {"path": "."}),
               ToolUse("grep_search", {"pattern": "answer"})]),
        Reply([Text("done")]))
    await agent.run_turn("use every tool")

    results = [b for m in mock_api.message_bodies[-1]["messages"] for b in m["content"]
               if isinstance(b, dict) and b.get("type") == "tool_result"]
    assert [r.get("is_error", False) for r in results] == [False] * 5, results
    listed, found = (json.dumps(r["content"]) for r in results[3:])
    assert "caf" in listed and "notes.md" in listed
    assert "notes.md" in found and "caf" in found
    (checkpoint,) = await agent.checkpoints.all()
    assert sorted(f.path for f in checkpoint.files) == ["app.py", "new.md", "shell.txt"]
    result = await agent.rewind(checkpoint.id, "code", Asked(agent))
    assert sorted(result.restored) == ["app.py", "new.md", "shell.txt"]
    assert os.path.exists(odd) and (workspace / "app.py").read_text() == "def main():\n    return 'hello'\n"


def stored(data_dir) -> list[Path]:
    """The contents the checkpoint store holds."""
    return [p for p in (data_dir / "checkpoints" / "blobs").rglob("*") if p.is_file() and p.name[0] != "."]


async def test_the_store_snapshots_only_what_a_turn_changes_and_keeps_owner_only_files_owner_only(
        make_agent, mock_api, workspace, data_dir):
    for i in range(200):
        (workspace / "lib").mkdir(exist_ok=True)
        (workspace / "lib" / f"m{i}.py").write_text(f"# module {i}\n" + "x = 1\n" * 200)
    secret = workspace / "secret.env"
    secret.write_text("TOKEN=owner only\n")
    secret.chmod(0o600)
    agent = make_agent()
    mock_api.script(Reply([Text("an answer, no tool")]))
    await agent.run_turn("a question")
    assert stored(data_dir) == []  # nothing read, nothing copied

    await turn(agent, mock_api, "edit one file",
               ToolUse("edit_file", {"path": "app.py", "old_text": "'hello'", "new_text": "'hi'"}))
    assert len(stored(data_dir)) == 2  # app.py before and after: not the 200 modules

    removed = await turn(agent, mock_api, "remove the secret", ToolUse("run_shell", {"command": "rm secret.env"}))
    assert not secret.exists()
    assert [oct(p.stat().st_mode & 0o077) for p in stored(data_dir) if p.stat().st_mode & 0o077] == []
    await agent.rewind(removed, "code", Asked(agent))
    assert secret.read_text() == "TOKEN=owner only\n" and oct(secret.stat().st_mode & 0o777) == "0o600"


def vacuum(workspace, data_dir, limit_mb: str) -> str:
    done = subprocess.run([*agentls_command(), "sessions", "--workspace", str(workspace), "vacuum",
                           "--limit", limit_mb], capture_output=True, text=True,
                          env={**os.environ, "AGENTLS_DATA_DIR": str(data_dir)}, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_the_checkpoint_store_is_bounded_by_the_store_limit_and_pruned_by_vacuum(
        make_agent, mock_api, workspace, data_dir, monkeypatch):
    (workspace / "lib").mkdir()
    for i in range(100):
        (workspace / "lib" / f"m{i}.py").write_text(f"# module {i}\n" + f"value_{i} = {i}\n" * 300)
    agent = make_agent()
    changed = await turn(agent, mock_api, "run the build", ToolUse("run_shell", {"command": "echo built > out.txt"}))
    assert len(stored(data_dir)) > 100  # the shell's snapshot: every file, before
    agent.session.close()  # the window closes: its session is no longer held

    # Over a limit that the named contents fit in: what no checkpoint names goes, the checkpoint stays.
    vacuum(workspace, data_dir, "0.001")
    assert len(stored(data_dir)) == 1  # out.txt as the turn left it ("before": it did not exist)
    again = make_agent(new=False)
    assert [c.id for c in await again.checkpoints.all()] == [changed]
    result = await again.rewind(changed, "code", Asked(again))
    assert result.restored == ["out.txt"] and not (workspace / "out.txt").exists()
    again.session.close()

    # A limit of 0: the checkpoints of sessions no window holds go too.
    said = vacuum(workspace, data_dir, "0")
    assert "checkpoints of 1 session removed" in said, said
    assert sum(p.stat().st_size for p in stored(data_dir)) == 0

    # Opening a session prunes a store over AGENTLS_STORE_LIMIT_MB.
    fresh = make_agent()
    await turn(fresh, mock_api, "run it again", ToolUse("run_shell", {"command": "echo again > out.txt"}))
    fresh.session.close()
    monkeypatch.setenv("AGENTLS_STORE_LIMIT_MB", "0.001")
    make_agent()
    assert len(stored(data_dir)) <= 2
