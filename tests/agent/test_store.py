"""The session store's API: sessions of a workspace (list, resume, rename, delete), one writer
per session (leases), failed writes during a turn, JSONL export/import from the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from agentls.agent import events as ev
from agentls.agent.store import SessionStore, StoreError, open_session
from agentls.agent.store.lease import LEASE_TTL
from agentls.context.structure import request_problems
from agentls.mock_api import Reply, Text, ToolUse
from forkserver import agentls_command

USAGE = {"input_tokens": 1000, "output_tokens": 100, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


def chat(session, prompt: str, answer: str) -> None:
    session.message({"role": "user", "content": [{"type": "text", "text": prompt}]})
    session.message({"role": "assistant", "content": [{"type": "text", "text": answer}]})
    session.usage("claude-sonnet-4-5", USAGE)


def test_list_resume_rename_delete(workspace, data_dir):
    first = open_session(workspace)
    chat(first, "Why does the build fail?\nmore lines", "because")
    chat(first, "and now?", "fixed")
    first_id = first.id
    first.close()
    second = open_session(workspace, new=True)
    chat(second, "second conversation", "ok")
    store = SessionStore(second.db)

    listed = store.sessions(workspace)
    assert [s.id for s in listed] == [second.id, first_id]  # most recent first
    old = listed[1]
    assert old.title == "Why does the build fail? more lines" and old.turns == 2
    assert old.tokens == 2 * 1100 and old.cost_usd == pytest.approx(2 * (1000 * 3 + 100 * 15) / 1e6)
    assert listed[0].in_use and not listed[1].in_use  # open (here) / closed
    assert store.sessions(workspace / "elsewhere") == []

    assert store.rename(first_id, "  Build failure ") and store.info(first_id).title == "Build failure"
    resumed = open_session(workspace, session_id=first_id)
    assert "fixed" in json.dumps(resumed.restore().messages)
    with pytest.raises(StoreError, match="open"):
        store.delete(first_id)  # another session object holds it
    resumed.close()
    assert store.delete(first_id) and store.info(first_id) is None
    assert not store.delete(first_id)
    with pytest.raises(StoreError, match="no session"):
        open_session(workspace, session_id=first_id)
    second.close()


def test_a_second_window_gets_its_own_conversation_and_a_dead_ones_is_taken_over(workspace, data_dir):
    mine = open_session(workspace)
    chat(mine, "mine", "ok")
    other = open_session(workspace)
    assert other.id != mine.id
    other.close()

    # a lease left by a process that died (kill -9): taken over at once
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    with mine.db.transaction() as connection:
        connection.execute("UPDATE leases SET pid = ?, owner = 'gone' WHERE session = ?",
                           (int(dead.stdout), mine.id))
    heir = open_session(workspace)
    assert heir.id == mine.id and "mine" in json.dumps(heir.restore().messages)
    # the first process wakes up and writes: it never writes into the heir's conversation
    chat(mine, "after the takeover", "ok")
    assert mine.id != heir.id and "took over" in " ".join(mine.problems)
    assert "after the takeover" not in json.dumps(heir.restore().messages)
    copy = mine.restore().messages
    assert "mine" in json.dumps(copy) and "after the takeover" in json.dumps(copy)
    heir.close()
    mine.close()


def test_a_silent_lease_goes_stale(workspace, data_dir):
    holder = open_session(workspace)
    chat(holder, "held", "ok")
    with holder.db.transaction() as connection:  # a live process (ours, another owner) silent for too long
        connection.execute("UPDATE leases SET heartbeat = ?, owner = 'x', pid = ? WHERE session = ?",
                           (time.time() - LEASE_TTL - 1, os.getppid(), holder.id))
    taker = open_session(workspace)
    assert taker.id == holder.id
    taker.close()
    holder.close()


async def test_a_failed_write_does_not_end_the_turn(make_agent, mock_api):
    agent = make_agent()
    await agent.run_turn("What does notes.md say?")
    connection = agent.session.db.connection
    pages = connection.execute("PRAGMA page_count").fetchone()[0]
    connection.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full
    mock_api.script(Reply([ToolUse("read_file", {"path": "notes.md"})]), Reply([Text("still answering " + "x" * 9000)]))
    seen: list = []
    result = await agent.run_turn("read it again", seen.append)
    assert result.text.startswith("still answering")
    errors = [e.message for e in seen if isinstance(e, ev.ErrorEvent)]
    assert len(errors) == 1 and "could not be saved" in errors[0] and "full" in errors[0]

    connection.execute("PRAGMA max_page_count = 1073741823")  # space again: what was missing is written first
    mock_api.script(Reply([Text("saved again")]))
    seen.clear()
    await agent.run_turn("and now?", seen.append)
    assert not [e for e in seen if isinstance(e, ev.ErrorEvent)]
    stored = open_session(agent.workspace.roots[0], session_id=None, new=False)  # another window: its own
    assert stored.id != agent.session.id
    stored.close()
    history = agent.session.restore().messages
    assert history == agent.history() and request_problems([*history, {"role": "user", "content": "x"}]) == []


def run_cli(args, env, stdin=None):
    return subprocess.run([*agentls_command(), "sessions", *args], capture_output=True, text=True,
                          env=env, input=stdin, timeout=120)


def test_export_import_and_list_from_the_cli(workspace, data_dir, tmp_path):
    session = open_session(workspace)
    chat(session, "exported prompt ✓", "exported answer")
    session.store.put("context://toolu_1", "the full text")
    session.close()
    env = {**os.environ, "AGENTLS_DATA_DIR": str(data_dir)}
    exported = run_cli(["--workspace", str(workspace), "export"], env)
    assert exported.returncode == 0, exported.stderr
    lines = [json.loads(line) for line in exported.stdout.splitlines()]
    assert lines[0]["type"] == "session" and {"message", "usage", "ref"} <= {line["type"] for line in lines}

    other = tmp_path / "other-ws"
    other.mkdir()
    damaged = exported.stdout + '{"type": "message", "message": {"role": "us\n'
    imported = run_cli(["--workspace", str(other), "import", "-"], env, stdin=damaged)
    assert imported.returncode == 0 and "1 unreadable lines skipped" in imported.stderr
    listed = run_cli(["--workspace", str(other), "list"], env)
    assert "exported prompt ✓" in listed.stdout and "1 turns" in listed.stdout
    moved = open_session(other)
    assert "exported answer" in json.dumps(moved.restore().messages)
    assert moved.store.get("context://toolu_1") == "the full text"
    moved.close()
    assert run_cli(["--workspace", str(other), "import", str(tmp_path / "missing.jsonl")], env).returncode == 1


def test_refs_are_written_once_and_read_back_after_a_restart(workspace, data_dir):
    session = open_session(workspace)
    session.store.put("context://toolu_1", "full text ✓")
    session.store.put("context://toolu_1", "a second write never replaces the first")
    chat(session, "read it", "done")
    session_id = session.id
    session.close()
    again = open_session(workspace, session_id=session_id)
    assert again.store.get("context://toolu_1") == "full text ✓" and again.store.get("context://missing") is None
    again.close()
