"""Who writes a session: one lease row per session (owner token, pid, host, heartbeat).

A lease is live while its heartbeat is fresh and, on this host, its process
exists; a dead process's lease (kill -9, crash, power cut) is taken over at
once, a silent one after LEASE_TTL. A heartbeat thread keeps ours fresh. Every
write checks, in its own transaction, that the lease is still ours, so two
processes never write into one conversation.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import sys
import threading
import time
import uuid

from .schema import connect

LEASE_TTL = 60.0  # seconds without a heartbeat before a lease is stale
HEARTBEAT = 10.0
HOST = socket.gethostname()
OWNERS_HERE: set[str] = set()  # leases this process holds now (a closed session's is stale at once)


def new_owner() -> str:
    owner = uuid.uuid4().hex
    OWNERS_HERE.add(owner)
    return owner


def released(owner: str) -> None:
    OWNERS_HERE.discard(owner)


def process_exists(pid: int) -> bool:
    """Whether the process runs; one that exited but was not reaped yet by its parent (a zombie, which
    os.kill still finds) does not: its lease is free at once (proc(5): state Z in /proc/<pid>/stat)."""
    if sys.platform == "win32":
        return True  # os.kill(pid, 0) would end the process on Windows; the heartbeat decides there
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)  # the name, in parentheses, may hold spaces and ")"
    except OSError:
        return False  # no /proc (macOS): os.kill decided
    return len(fields) == 2 and fields[1].split()[:1] == [b"Z"]


def is_live(row: tuple | None, now: float) -> bool:
    """row = (owner, pid, host, heartbeat)."""
    if row is None:
        return False
    _, pid, host, heartbeat = row
    if not isinstance(heartbeat, (int, float)) or now - heartbeat > LEASE_TTL:
        return False
    if host == HOST and pid == os.getpid():
        return row[0] in OWNERS_HERE
    if host == HOST and isinstance(pid, int):
        return process_exists(pid)
    return True


def lease_of(connection: sqlite3.Connection, session_id: str) -> tuple | None:
    return connection.execute("SELECT owner, pid, host, heartbeat FROM leases WHERE session = ?",
                              (session_id,)).fetchone()


def try_take(connection: sqlite3.Connection, session_id: str, owner: str, now: float) -> bool:
    """Take the lease if it is free or stale (inside the caller's write transaction)."""
    current = lease_of(connection, session_id)
    if current is not None and current[0] != owner and is_live(current, now):
        return False
    connection.execute("INSERT OR REPLACE INTO leases (session, owner, pid, host, heartbeat) VALUES (?, ?, ?, ?, ?)",
                       (session_id, owner, os.getpid(), HOST, now))
    return True


def holds(connection: sqlite3.Connection, session_id: str, owner: str) -> bool:
    current = lease_of(connection, session_id)
    return current is not None and current[0] == owner


class Heartbeat:
    """Refreshes a lease from its own thread and connection until stopped."""

    def __init__(self, path, session_id: str, owner: str) -> None:
        self.session_id, self.owner = session_id, owner
        self._stop = threading.Event()
        try:  # its own connection, to the existing file only (never creates one)
            self._connection = connect(f"file:{path}?mode=rw", uri=True)
        except sqlite3.Error:
            return
        self._thread = threading.Thread(target=self._run, name="agentls-lease", daemon=True)
        self._thread.start()

    def move(self, session_id: str) -> None:
        self.session_id = session_id

    def _run(self) -> None:
        connection = self._connection
        try:
            while not self._stop.wait(HEARTBEAT):
                try:
                    connection.execute("UPDATE leases SET heartbeat = ? WHERE session = ? AND owner = ?",
                                       (time.time(), self.session_id, self.owner))
                except sqlite3.Error:
                    pass  # a full or busy disk: the next beat tries again
        finally:
            connection.close()

    def stop(self) -> None:
        self._stop.set()
