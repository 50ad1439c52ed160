"""Salvage of a damaged session database: what reads is copied, around a damaged page, and a file
that is not a database is given up at once rather than probed rowid by rowid."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from agentls.agent.store import salvage as salvage_module
from agentls.agent.store.salvage import salvage
from agentls.agent.store.schema import connect, prepare

RECORDS = 400


def database_with_records(path: Path) -> None:
    db = connect(path)
    prepare(db, check=False)
    db.execute("PRAGMA journal_mode = DELETE")  # everything in the one file, as a crash may leave it
    with db:
        for seq in range(RECORDS):
            db.execute("INSERT INTO records (session, seq, kind, at, body) VALUES (?, ?, ?, ?, ?)",
                       ("s1", seq, "message", 1.0, f"record-{seq:04d} " + "x" * 300))
    db.close()


def bodies(db: sqlite3.Connection) -> set[str]:
    return {body.split()[0] for (body,) in db.execute("SELECT body FROM records")}


def test_rows_on_both_sides_of_a_damaged_page_are_copied(tmp_path):
    damaged = tmp_path / "sessions.db"
    database_with_records(damaged)
    content = bytearray(damaged.read_bytes())
    page = 4096
    at = content.index(b"record-0200")
    start = at - at % page
    content[start:start + page] = bytes(range(256)) * (page // 256)  # one leaf page of the table: garbage
    damaged.write_bytes(bytes(content))

    fresh = connect(tmp_path / "fresh.db")
    prepare(fresh, check=False)
    copied = salvage(damaged, fresh)
    found = bodies(fresh)
    assert "record-0000" in found and "record-0399" in found  # before and after the damage
    assert "record-0200" not in found
    assert copied == len(found) and RECORDS - 40 < copied < RECORDS


def test_a_file_that_is_not_a_database_is_given_up_at_once(tmp_path, monkeypatch):
    damaged = tmp_path / "sessions.db"
    damaged.write_bytes(b"this is not a database\n" * 500)
    statements: list[str] = []

    class Counting:  # the source connection, counting the queries salvage asks of it (failed ones too)
        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def execute(self, sql: str, *args):
            statements.append(sql)
            return self.db.execute(sql, *args)

        def close(self) -> None:
            self.db.close()

    def counting_connect(path, *args, **kwargs):
        return Counting(connect(path, *args, **kwargs))

    monkeypatch.setattr(salvage_module, "connect", counting_connect)
    fresh = connect(tmp_path / "fresh.db")
    prepare(fresh, check=False)
    assert salvage(damaged, fresh) == 0
    # one query per table, not SKIP_LIMIT per table (200 each: what a rowid-by-rowid walk tries)
    assert len([s for s in statements if s.startswith("SELECT")]) <= len(salvage_module.TABLES)
