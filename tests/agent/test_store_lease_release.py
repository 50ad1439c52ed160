"""Issue 32: a session's lease never outlives its process — an exited process not reaped yet (a zombie)
holds nothing, and a process closing the session as another loads it is waited for, briefly."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

import agentls.agent.store as store
from agentls.agent.store import SessionInUse, open_session

HOLDER = """
import sys
from pathlib import Path
from agentls.agent.store import open_session
session = open_session(Path(sys.argv[1]), session_id=sys.argv[2])
print("held", flush=True)
sys.stdin.readline()  # told to go: it closes the session (its lease is released) and exits
session.close()
"""


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0].decode()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="zombies are told by /proc")
def test_the_lease_of_an_exited_process_its_parent_did_not_reap_yet_is_taken_over(workspace, data_dir):
    mine = open_session(workspace)
    mine.message({"role": "user", "content": [{"type": "text", "text": "mine"}]})
    gone = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    gone.stdin.close()  # it exits; not waited for, so it stays a zombie until it is reaped
    while _state(gone.pid) != "Z":
        pass
    with mine.db.transaction() as connection:
        connection.execute("UPDATE leases SET pid = ?, owner = 'gone' WHERE session = ?", (gone.pid, mine.id))
    try:
        heir = open_session(workspace, session_id=mine.id)
        assert heir.id == mine.id
        heir.close()
    finally:
        gone.wait()
        mine.close()


def test_a_load_waits_for_a_process_closing_the_session_and_not_for_one_that_keeps_it(
        workspace, data_dir, monkeypatch):
    first = open_session(workspace)
    first.message({"role": "user", "content": [{"type": "text", "text": "hello"}]})
    sid = first.id
    first.close()
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(workspace), sid], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        refused = threading.Event()
        attempt = store._open_once

        def watched(*args, **kwargs):
            try:
                return attempt(*args, **kwargs)
            except Exception:
                refused.set()  # the holder still had it
                raise

        monkeypatch.setattr(store, "_open_once", watched)
        opened: list = []
        failed: list = []

        def load() -> None:
            try:
                opened.append(open_session(workspace, session_id=sid))
            except Exception as error:  # noqa: BLE001 - the test reads it
                failed.append(error)

        loading = threading.Thread(target=load)
        loading.start()
        assert refused.wait(30)
        holder.stdin.write("go\n")  # the old agent lets go while the new one is loading
        holder.stdin.flush()
        loading.join(30)
        assert failed == [] and [session.id for session in opened] == [sid]
        opened[0].close()
    finally:
        holder.stdin.close()
        holder.wait(30)

    keeper = subprocess.Popen([sys.executable, "-c", HOLDER, str(workspace), sid], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert keeper.stdout.readline().strip() == "held"
        monkeypatch.setattr(store, "IN_USE_WAIT_SECONDS", 0.5)
        with pytest.raises(SessionInUse, match="open in another window"):
            open_session(workspace, session_id=sid)
    finally:
        keeper.stdin.close()
        keeper.wait(30)
