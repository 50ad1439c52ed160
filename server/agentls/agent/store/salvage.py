"""Copy what can still be read out of a damaged database file into a fresh one."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from .schema import TABLES, column_names, connect

SKIP_LIMIT = 200  # unreadable rowids skipped in a row before giving up on a table
STEP_LIMIT = 1_000_000  # a damaged b-tree may loop: never more steps than this


def salvage(damaged: Path, into: sqlite3.Connection) -> int:
    """How many record rows were copied (sessions, refs and migrations come along)."""
    try:
        source = connect(damaged)
    except sqlite3.Error:
        return 0
    copied = 0
    try:
        for table in TABLES:
            if table == "leases":
                continue  # a lease of the old file means nothing in the new one
            rows = _readable_rows(source, table)
            names = column_names(table)
            marks = ", ".join("?" * len(names))
            for row in rows:
                try:
                    into.execute(f"INSERT OR IGNORE INTO {table} ({', '.join(names)}) VALUES ({marks})", row)
                    copied += table == "records"
                except sqlite3.Error:
                    continue
    finally:
        source.close()
    return copied


def _readable_rows(source: sqlite3.Connection, table: str) -> list[tuple]:
    """The table's rows in rowid order: one scan while the b-tree reads well, then rowid by rowid over
    the damage. A file that is not a database, or a table that is not there, gives up at once."""
    columns = ", ".join(column_names(table))
    rows: list[tuple] = []
    rowid = 0
    try:
        for found in source.execute(f"SELECT rowid, {columns} FROM {table} ORDER BY rowid"):
            if not isinstance(found[0], int) or found[0] <= rowid:  # out of order: a damaged page
                break
            rowid = found[0]
            rows.append(tuple(found[1:]))
        else:
            return rows
    except sqlite3.Error as error:
        if _hopeless(error):
            return rows
    return rows + _rows_over_damage(source, table, columns, rowid)


def _hopeless(error: sqlite3.Error) -> bool:
    """Errors no other rowid would avoid (stepping on would only repeat them, SKIP_LIMIT times)."""
    text = str(error)
    return "not a database" in text or "no such table" in text or "no such column" in text


def _rows_over_damage(source: sqlite3.Connection, table: str, columns: str, rowid: int) -> list[tuple]:
    rows: list[tuple] = []
    misses = 0
    for _ in range(STEP_LIMIT):
        if misses >= SKIP_LIMIT:
            break
        try:
            found = source.execute(f"SELECT rowid, {columns} FROM {table} WHERE rowid > ? ORDER BY rowid LIMIT 1",
                                   (rowid,)).fetchone()
        except sqlite3.Error as error:
            if _hopeless(error):
                break
            rowid, misses = rowid + 1, misses + 1  # a damaged page: step over this rowid
            continue
        if found is None:
            break
        if not isinstance(found[0], int) or found[0] <= rowid:  # out of order: a damaged page
            rowid, misses = rowid + 1, misses + 1
            continue
        rowid, misses = found[0], 0
        rows.append(tuple(found[1:]))
    return rows
