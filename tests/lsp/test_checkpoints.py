"""Checkpoints and rewind over LSP (issue 20), against the real server and the mock model.

The workspace is a git repository holding the user's own work: a stash, an
uncommitted change and an untracked file. Three turns change it by three
routes (edit_file, a shell command, write_file); rewinds must give back
exactly what the agent changed, shell side effects included, and never
touch the user's .git.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from agentls.agent.checkpoints.restore import FAULT_ENV
from agentls.mock_api import Reply, Text, ToolUse

from .helpers import full_capabilities, options_for, server_env, wait_until

PROMPTS = ("first: make app.py say hi", "second: run the shell", "third: write the guide")
GIT = {"GIT_AUTHOR_NAME": "u", "GIT_AUTHOR_EMAIL": "u@example.com", "GIT_COMMITTER_NAME": "u",
       "GIT_COMMITTER_EMAIL": "u@example.com", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


# An editor without workspace/applyEdit: the agent's writes land on disk, as after a save.
ON_DISK = types.ClientCapabilities()


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, env={**os.environ, **GIT}, check=True, capture_output=True,
                          text=True).stdout


def tree_hash(folder: Path) -> str:
    """Every name, mode and byte under `folder` (here: the whole .git: HEAD, refs, index, stash, objects)."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        digest.update(f"{path.relative_to(folder)}\0{info.st_mode:o}\0".encode())
        if path.is_file() and not path.is_symlink():
            digest.update(path.read_bytes())
    return digest.hexdigest()


@pytest.fixture
def repo(workspace: Path) -> Path:
    """notes.md and app.py committed; a stash; the user's uncommitted change and untracked file."""
    git(workspace, "init", "-q")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "start")
    (workspace / "app.py").write_text("def main():\n    return 'stashed'\n")
    git(workspace, "stash", "-q")
    (workspace / "notes.md").write_text("# Notes\nThe answer is 42.\nMy own line, not committed.\n")
    (workspace / "mine.txt").write_text("the user's untracked file\n")
    return workspace


def three_turns() -> list[Reply]:
    return [
        Reply([ToolUse("edit_file", {"path": "app.py", "old_text": "'hello'", "new_text": "'hi'"})]),
        Reply([Text("edited")]),
        Reply([ToolUse("run_shell", {"command": "echo made by the shell > made.txt && echo appended >> notes.md"})]),
        Reply([Text("ran")]),
        Reply([ToolUse("write_file", {"path": "docs/guide.md", "content": "# Guide\n"})]),
        Reply([Text("wrote")]),
    ]


async def run_three_turns(editor, mock_api) -> list[dict]:
    mock_api.script(*three_turns())
    for prompt in PROMPTS:
        await editor.request("agent/chat", {"prompt": prompt})
    return (await editor.request("agent/checkpoints"))["checkpoints"]


async def current_transcript(editor) -> list[dict]:
    current = (await editor.request("agent/sessions"))["current"]
    return (await editor.request("agent/resume", {"sessionId": current}))["transcript"]


async def test_three_turns_rewound_by_code_then_both_leave_the_users_work_and_git_alone(
        start_editor, mock_api, repo, data_dir):
    git_before = tree_hash(repo / ".git")
    status_before = git(repo, "status", "--porcelain", "--untracked-files=all")
    users_notes = (repo / "notes.md").read_text()
    editor = await start_editor(options_for(mock_api), ON_DISK)
    await wait_until(lambda: editor.usages)

    checkpoints = await run_three_turns(editor, mock_api)
    assert [c["prompt"] for c in checkpoints] == list(PROMPTS)
    assert [c["files"] for c in checkpoints] == [
        [{"path": "app.py", "change": "modified"}],
        [{"path": "made.txt", "change": "added"}, {"path": "notes.md", "change": "modified"}],
        [{"path": "docs/guide.md", "change": "added"}],
    ]
    assert all(c["kind"] == "turn" and not c["rewound"] and c["skipped"] == [] for c in checkpoints)
    assert {e["checkpoint"] for e in editor.events if e["kind"] == "checkpoint"} == {c["id"] for c in checkpoints}
    first, _, third = (c["id"] for c in checkpoints)

    # What a restore to before the third turn would change, before doing it.
    preview = await editor.request("agent/checkpointDiff", {"checkpoint": third})
    assert [(f["path"], f["change"], f["conflict"]) for f in preview["files"]] == [("docs/guide.md", "deleted", False)]
    assert "-# Guide" in preview["files"][0]["diff"]

    code = await editor.request("agent/rewind", {"checkpoint": third, "restore": "code"})
    assert code["restored"] == ["docs/guide.md"] and code["conflicts"] == [] and not code["conversation"]
    assert not (repo / "docs/guide.md").exists()
    assert (repo / "made.txt").read_text() == "made by the shell\n"
    assert (repo / "notes.md").read_text() == users_notes + "appended\n"
    assert "'hi'" in (repo / "app.py").read_text()
    assert [e["text"] for e in await current_transcript(editor) if e["role"] == "user"] == list(PROMPTS)
    listed = (await editor.request("agent/checkpoints"))["checkpoints"]
    assert [c["rewound"] for c in listed] == [False, False, True, False]
    assert listed[-1]["kind"] == "rewind" and listed[-1]["id"] == code["undo"]

    both = await editor.request("agent/rewind", {"checkpoint": first, "restore": "both"})
    assert sorted(both["restored"]) == ["app.py", "made.txt", "notes.md"] and both["conversation"]
    assert both["transcript"] == []
    assert (repo / "app.py").read_text() == "def main():\n    return 'hello'\n"
    assert not (repo / "made.txt").exists() and not (repo / "docs/guide.md").exists()
    assert (repo / "notes.md").read_text() == users_notes  # the user's own uncommitted line is kept
    assert (repo / "mine.txt").read_text() == "the user's untracked file\n"
    assert tree_hash(repo / ".git") == git_before  # HEAD, refs, index, stash, objects: untouched
    # (last: `git status` itself may refresh the stat data in the index)
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == status_before

    # A restart agrees, and the next request carries nothing of the rewound turns.
    await editor.client.shutdown_session()
    again = await start_editor(options_for(mock_api), ON_DISK)
    await wait_until(lambda: again.usages)
    # only what the restore did is left of the transcript (issue 33.4: a resumed panel shows it)
    assert [(e["kind"], e["text"]) for e in await current_transcript(again)] == [
        ("note", "Restored `app.py`, `made.txt`, `notes.md`.")]
    mock_api.script(Reply([Text("fresh start")]))
    await again.request("agent/chat", {"prompt": "fourth: hello again"})
    sent = mock_api.message_bodies[-1]["messages"]
    assert len(sent) == 1 and sent[0]["role"] == "user" and "fourth: hello again" in json.dumps(sent)
    for gone in (*PROMPTS, "edited", "ran", "wrote", "tool_use"):
        assert gone not in json.dumps(sent)


async def test_a_file_changed_outside_the_agent_is_a_conflict_asked_about(start_editor, mock_api, repo):
    editor = await start_editor(options_for(mock_api), ON_DISK)
    await wait_until(lambda: editor.usages)
    mock_api.script(Reply([ToolUse("write_file", {"path": "app.py", "content": "print('agent')\n"})]),
                    Reply([Text("done")]))
    await editor.request("agent/chat", {"prompt": "rewrite app.py"})
    (checkpoint,) = (await editor.request("agent/checkpoints"))["checkpoints"]
    (repo / "app.py").write_text("print('the user, after the agent')\n")  # outside the agent

    preview = await editor.request("agent/checkpointDiff", {"checkpoint": checkpoint["id"]})
    assert [(f["path"], f["conflict"]) for f in preview["files"]] == [("app.py", True)]

    editor.confirms.clear()
    editor.confirm_answer = {"approved": False}
    refused = await editor.request("agent/rewind", {"checkpoint": checkpoint["id"], "restore": "code"})
    (asked,) = editor.confirms
    assert asked["kind"] == "rewind" and asked["paths"] == ["app.py"] and "the user, after the agent" in asked["diff"]
    assert refused["cancelled"] and refused["conflicts"] == ["app.py"] and refused["restored"] == []
    assert (repo / "app.py").read_text() == "print('the user, after the agent')\n"  # nothing overwritten

    editor.confirm_answer = {"approved": True}
    done = await editor.request("agent/rewind", {"checkpoint": checkpoint["id"], "restore": "code"})
    assert done["restored"] == ["app.py"] and done["conflicts"] == ["app.py"] and not done["cancelled"]
    assert (repo / "app.py").read_text() == "def main():\n    return 'hello'\n"

    # The rewind was itself checkpointed: rewinding to it gives the user's version back.
    undo = await editor.request("agent/rewind", {"checkpoint": done["undo"], "restore": "code"})
    assert undo["restored"] == ["app.py"]
    # issue 33.7: named after the prompt, never nested ("before rewinding to “before rewinding to …")
    labels = {c["id"]: c["prompt"] for c in (await editor.request("agent/checkpoints"))["checkpoints"]}
    assert labels[done["undo"]] == "before rewinding to “rewrite app.py”"
    assert labels[undo["undo"]] == "Undo restore of “rewrite app.py”"
    assert (repo / "app.py").read_text() == "print('the user, after the agent')\n"
    # Issue 33.4: what the restores did stays in the transcript a resumed panel shows (a refused one did nothing)
    notes = [e["text"] for e in await current_transcript(editor) if e["kind"] == "note"]
    assert notes == ["Restored `app.py`.", "Restored `app.py`."]
    with pytest.raises(JsonRpcException, match="restores files only"):
        await editor.request("agent/rewind", {"checkpoint": done["undo"], "restore": "both"})
    with pytest.raises(JsonRpcException, match="no checkpoint"):
        await editor.request("agent/rewind", {"checkpoint": "nope", "restore": "code"})
    with pytest.raises(JsonRpcException, match="restore must be one of"):
        await editor.request("agent/rewind", {"checkpoint": checkpoint["id"], "restore": "files"})


async def test_a_server_killed_mid_rewind_leaves_every_file_old_or_new_and_the_next_start_finishes_it(
        start_editor, mock_api, repo, data_dir):
    originals = {name: (repo / name).read_bytes() for name in ("app.py", "notes.md")}
    # The server dies (os._exit) after the second rename of the rewind's commit step.
    editor = await start_editor(options_for(mock_api), ON_DISK, env=server_env(data_dir, **{FAULT_ENV: "commit:2"}))
    await wait_until(lambda: editor.usages)
    checkpoints = await run_three_turns(editor, mock_api)
    changed = {name: (repo / name).read_bytes() for name in ("app.py", "notes.md", "made.txt", "docs/guide.md")}
    with pytest.raises(Exception):  # noqa: B017 - the server is gone: whatever error the client reports
        await editor.request("agent/rewind", {"checkpoint": checkpoints[0]["id"], "restore": "code"})

    for name, new in changed.items():  # each file is the agent's version or the restored one, never torn
        now = (repo / name).read_bytes() if (repo / name).exists() else None
        assert now in (new, originals.get(name)), name
    assert any(((repo / n).read_bytes() if (repo / n).exists() else None) != changed[n] for n in changed)

    again = await start_editor(options_for(mock_api), ON_DISK)
    await wait_until(lambda: again.usages)
    assert {name: (repo / name).read_bytes() for name in originals} == originals
    assert not (repo / "made.txt").exists() and not (repo / "docs/guide.md").exists()
    assert not [p for p in repo.rglob("*") if ".agentls-restore-" in p.name]


async def test_fork_starts_a_new_session_with_the_conversation_up_to_the_checkpoint(start_editor, mock_api, repo):
    editor = await start_editor(options_for(mock_api), ON_DISK)
    await wait_until(lambda: editor.usages)
    checkpoints = await run_three_turns(editor, mock_api)
    old = (await editor.request("agent/sessions"))["current"]
    forked = await editor.request("agent/fork", {"checkpoint": checkpoints[2]["id"]})
    assert forked["sessionId"] != old
    assert [e["text"] for e in forked["transcript"] if e["role"] == "user"] == list(PROMPTS[:2])
    assert [e.get("checkpoint") for e in forked["transcript"] if e["role"] == "user"] == \
        [c["id"] for c in checkpoints[:2]]
    sessions = {s["id"]: s for s in (await editor.request("agent/sessions"))["sessions"]}
    assert sessions[old]["turns"] == 3 and sessions[forked["sessionId"]]["current"]
    mock_api.script(Reply([Text("forked")]))
    await editor.request("agent/chat", {"prompt": "on the fork"})
    sent = json.dumps(mock_api.message_bodies[-1]["messages"])
    assert PROMPTS[1] in sent and PROMPTS[2] not in sent
    assert (repo / "docs/guide.md").exists()  # a fork leaves the files alone


async def test_an_open_buffer_is_restored_through_apply_edit(start_editor, mock_api, workspace):
    capabilities = full_capabilities()  # edits go through the editor, which can create and delete files
    capabilities.workspace.workspace_edit.resource_operations = [types.ResourceOperationKind.Create,
                                                                 types.ResourceOperationKind.Delete]
    editor = await start_editor(options_for(mock_api), capabilities)
    await wait_until(lambda: editor.usages)
    original = (workspace / "app.py").read_text()
    editor.open(workspace / "app.py", original)
    mock_api.script(Reply([ToolUse("edit_file", {"path": "app.py", "old_text": "'hello'", "new_text": "'hi'"})]),
                    Reply([Text("edited")]),
                    Reply([ToolUse("write_file", {"path": "new.md", "content": "# New\n"})]), Reply([Text("made")]))
    await editor.request("agent/chat", {"prompt": "edit the open file"})
    await editor.request("agent/chat", {"prompt": "create a file"})
    checkpoints = (await editor.request("agent/checkpoints"))["checkpoints"]
    assert [c["files"] for c in checkpoints] == [[{"path": "app.py", "change": "modified"}],
                                                 [{"path": "new.md", "change": "added"}]]
    editor.edits.clear()
    done = await editor.request("agent/rewind", {"checkpoint": checkpoints[0]["id"], "restore": "code"})
    assert sorted(done["restored"]) == ["app.py", "new.md"]
    changes = [c for edit in editor.edits for c in edit.edit.document_changes]
    texts = [e.new_text for c in changes if isinstance(c, types.TextDocumentEdit) for e in c.edits]
    assert texts == [original]  # the buffer shows the restored text
    assert [c.uri for c in changes if isinstance(c, types.DeleteFile)] == [(workspace / "new.md").as_uri()]
    assert (workspace / "app.py").read_text() == original
