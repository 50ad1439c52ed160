"""Issue 8, points 1 and 2, through the real server process.

1. A damaged record in a session (here: the JSONL log of before the SQLite
   store, which is migrated on first start) never bricks the workspace: the
   agent starts, `agent/clear` works, the user is told once, in plain words.
2. Two servers on one workspace never write into the same conversation: a
   third start resumes exactly one of the two conversations, valid and whole.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import subprocess
from pathlib import Path

import pytest
from lsprotocol import types

from agentls.context.structure import request_problems
from agentls.mock_api import Reply, Text, ToolUse
from .helpers import options_for, server_env
from forkserver import agentls_command

GOOD = [
    {"type": "message", "at": 1.0, "message": {"role": "user", "content": [{"type": "text", "text": "first prompt"}]}},
    {"type": "message", "at": 2.0,
     "message": {"role": "assistant", "content": [{"type": "text", "text": "first answer"}]}},
    {"type": "usage", "at": 2.0, "model": "claude-sonnet-4-5", "usage": {
        "input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}},
]
TOOL_USE = {"type": "message", "at": 3.0, "message": {"role": "assistant", "content": [
    {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "notes.md"}}]}}
SECOND_PROMPT = {"type": "message", "at": 3.0,
                 "message": {"role": "user", "content": [{"type": "text", "text": "next"}]}}

# The damaged tails of the issue (each appended after a complete first turn).
DAMAGES = {
    "torn-utf8-at-disk-full": (lambda line: line[:line.index("é".encode()) + 1])(
        json.dumps({**SECOND_PROMPT, "message": {"role": "user", "content": "né"}}, ensure_ascii=False).encode()),
    "json-not-an-object": b"[1, 2, 3]\n",
    "record-without-type": json.dumps({"at": 3.0, "message": SECOND_PROMPT["message"]}).encode() + b"\n",
    "usage-with-unknown-field":
        json.dumps({**GOOD[2], "usage": {**GOOD[2]["usage"], "server_tool_use": 1}}).encode() + b"\n",
    "missing-tool-result": (json.dumps(SECOND_PROMPT) + "\n" + json.dumps(TOOL_USE) + "\n"
                            + json.dumps(SECOND_PROMPT) + "\n").encode(),
    "message-of-wrong-type": json.dumps({"type": "message", "at": 3.0, "message": "hello"}).encode() + b"\n",
}


def legacy_session(data_dir: Path, workspace: Path, tail: bytes) -> Path:
    """The layout of the JSONL session log: sessions/<name>-<sha>/<id>/log.jsonl and a `current` pointer."""
    resolved = str(workspace.resolve())
    home = data_dir / "sessions" / f"{Path(resolved).name}-{hashlib.sha1(resolved.encode()).hexdigest()[:10]}"
    folder = home / "20260101-000000-abcdef"
    folder.mkdir(parents=True)
    (home / "current").write_text(folder.name)
    lines = b"".join(json.dumps(r).encode() + b"\n" for r in GOOD)
    (folder / "log.jsonl").write_bytes(lines + tail)
    return folder


SKIPPED_LINES = {"torn-utf8-at-disk-full", "json-not-an-object", "record-without-type", "message-of-wrong-type"}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
async def test_a_damaged_session_record_does_not_brick_the_workspace(start_editor, mock_api, workspace, data_dir,
                                                                      damage):
    legacy_session(data_dir, workspace, DAMAGES[damage])
    editor = await start_editor(options_for(mock_api))
    mock_api.script(Reply([Text("still working")]))
    chat = await editor.request("agent/chat", {"prompt": "are you there?"})
    assert "still working" in json.dumps(chat)
    sent = mock_api.message_bodies[-1]["messages"]
    assert "first prompt" in json.dumps(sent) and "first answer" in json.dumps(sent)  # the completed turn is kept
    assert request_problems(sent) == []
    warnings = [m.message for m in editor.client.messages if m.type == types.MessageType.Warning]
    notes = [e["message"] for e in editor.events if e["kind"] == "error"]
    if damage in SKIPPED_LINES:  # told once, in plain words: a toast, and a note in the chat
        assert len(warnings) == 1 and "1 damaged line of the old session log" in warnings[0]
        assert "left as it was" in warnings[0] and len(notes) == 1 and notes[0] in warnings[0]
    else:  # an unknown usage field is ignored; a lost tool_result is answered "interrupted": nothing to report
        assert warnings == [] and notes == []
    assert await editor.request("agent/clear") == {}
    mock_api.script(Reply([Text("fresh")]))
    await editor.request("agent/chat", {"prompt": "again"})
    assert [e["message"] for e in editor.events if e["kind"] == "error"] == notes  # not told twice


async def test_ask_on_a_damaged_session_prints_no_traceback(tmp_path, workspace):
    data = tmp_path / "data"
    legacy_session(data, workspace, DAMAGES["json-not-an-object"])
    done = await asyncio.to_thread(
        subprocess.run, [*agentls_command(), "ask", "What does notes.md say?", "--workspace",
                         str(workspace)], capture_output=True, text=True, env=server_env(data), timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 0 and "The answer is 42." in done.stdout


def turn_script(tag: str) -> list[Reply]:
    """A turn with a tool call: user, assistant tool_use, user tool_result, assistant text."""
    return [Reply([ToolUse("read_file", {"path": "notes.md"})]), Reply([Text(f"answer {tag}")])]


async def test_two_servers_on_one_workspace_keep_their_conversations_apart(start_editor, mock_api):
    first = await start_editor(options_for(mock_api))
    second = await start_editor(options_for(mock_api))
    for turn in range(3):
        for name, editor in (("A", first), ("B", second)):
            mock_api.script(*turn_script(f"{name}{turn}"))
            await editor.request("agent/chat", {"prompt": f"prompt {name}{turn}"})
    own = [json.dumps(mock_api.message_bodies[-3]["messages"]), json.dumps(mock_api.message_bodies[-1]["messages"])]
    assert "prompt B" not in own[0] and "prompt A" not in own[1]  # each keeps its own conversation
    await first.client.shutdown_session()
    await second.client.shutdown_session()

    third = await start_editor(options_for(mock_api))
    mock_api.script(Reply([Text("resumed")]))
    await third.request("agent/chat", {"prompt": "where were we?"})
    resumed = mock_api.message_bodies[-1]["messages"]
    assert request_problems(resumed) == []
    text = json.dumps(resumed)
    mine = "A" if "prompt A0" in text else "B"
    other = "B" if mine == "A" else "A"
    assert f"prompt {other}" not in text and f"answer {other}" not in text  # nothing of the other conversation
    for turn in range(3):
        assert f"prompt {mine}{turn}" in text and f"answer {mine}{turn}" in text  # all of its own


async def test_ask_on_a_database_that_is_not_a_database_sets_it_aside_and_answers(tmp_path, workspace):
    data = tmp_path / "data"
    data.mkdir()
    (data / "sessions.db").write_bytes(b"this is not a database\n" * 100)
    done = await asyncio.to_thread(
        subprocess.run, [*agentls_command(), "ask", "What does notes.md say?", "--workspace",
                         str(workspace)], capture_output=True, text=True, env=server_env(data), timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 0 and "The answer is 42." in done.stdout
    assert "The session database was damaged" in done.stderr  # told, in the terminal
    kept = list(data.glob("sessions.db.damaged-*"))
    assert len(kept) == 1 and kept[0].read_bytes().startswith(b"this is not a database")  # set aside, not deleted
