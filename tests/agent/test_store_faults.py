"""Fault suite of the session store: over a thousand damages of the database and of the old
JSONL logs it migrates. For every one: the agent starts, its history is a valid API request,
and every turn completed before the damage is restored.

Damages: truncation of the WAL at every byte offset of the last commit; truncation of an old
log at every byte offset of its last line (torn UTF-8 among them); garbage lines and bytes;
wrong types in rows and lines; deleted rows; a damaged or foreign database file; a full disk
(RLIMIT_FSIZE in a subprocess).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pytest

from agentls.agent.loop import Agent
from agentls.agent.store import open_session
from agentls.agent.workspace import Workspace
from agentls.context.structure import request_problems
from agentls.model import ModelSettings

TURNS = 6
SMALL_PAGES = 512  # the WAL truncation walks every byte of the last commit: small pages keep it quick


def turn_records(i: int) -> list[tuple[str, dict]]:
    """One completed turn as the agent writes it: prompt, tool call, result, answer, usage."""
    return [
        ("message", {"message": {"role": "user", "content": [{"type": "text", "text": f"prompt {i} — ünïcødé ✓"}]}}),
        ("message", {"message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{i}", "name": "read_file", "input": {"path": "notes.md"}}]}}),
        ("message", {"message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": f"result {i} ✓"}]}}),
        ("message", {"message": {"role": "assistant", "content": [{"type": "text", "text": f"answer {i} ✓"}]}}),
        ("usage", {"model": "claude-sonnet-4-5", "usage": {"input_tokens": 10, "output_tokens": 5,
                                                           "cache_creation_input_tokens": 0,
                                                           "cache_read_input_tokens": 0}}),
    ]


def write_turns(session, turns: range) -> None:
    for i in turns:
        for kind, body in turn_records(i):
            session._write(kind, body)


class Tally:
    def __init__(self) -> None:
        self.cases = Counter()
        self.failed_to_start: list[str] = []
        self.turns_lost: list[str] = []
        self.invalid: list[str] = []

    async def check(self, category: str, data: Path, root: Path, completed: int, note: str = "") -> None:
        """Start the agent on what is on disk; the first `completed` turns must all be there."""
        self.cases[category] += 1
        try:
            agent = Agent(Workspace([root]), ModelSettings(base_url="http://127.0.0.1:9", api_key="k"),
                          session=open_session(root, base=data))
        except Exception as error:  # noqa: BLE001 - this is what is counted
            self.failed_to_start.append(f"{category} {note}: {type(error).__name__}: {error}")
            return
        try:
            history = agent.history()
            probe = (history + [{"role": "user", "content": "next"}]
                     if history and history[-1]["role"] == "assistant" else history)
            if history and request_problems(probe):
                self.invalid.append(f"{category} {note}: {request_problems(probe)[:2]}")
            text = json.dumps(history, ensure_ascii=False)
            lost = [i for i in range(completed) if f"prompt {i} —" not in text or f"answer {i} ✓" not in text]
            if lost:
                self.turns_lost.append(f"{category} {note}: turns {lost}")
        finally:
            await agent.aclose()


@pytest.fixture
def tally():
    return Tally()


@pytest.fixture
def scratch(tmp_path):
    """A RAM folder when there is one: the suite checks logic, not the disk's fsync speed."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="agentls-store-faults-", dir=shm))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def fresh(tmp_path: Path, name: str) -> tuple[Path, Path]:
    data, root = tmp_path / name / "data", tmp_path / name / "ws"
    shutil.rmtree(tmp_path / name, ignore_errors=True)
    data.mkdir(parents=True)
    root.mkdir()
    return data, root


def files_of(data: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in data.iterdir() if p.name.startswith("sessions.db")}


def restore_files(data: Path, files: dict[str, bytes]) -> None:
    for path in list(data.iterdir()):
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
    for name, content in files.items():
        (data / name).write_bytes(content)


# -- the database ---------------------------------------------------------------------


async def wal_truncations(tmp_path: Path, tally: Tally) -> None:
    data, root = fresh(tmp_path, "wal")
    with sqlite3.connect(data / "sessions.db") as db:
        db.execute(f"PRAGMA page_size = {SMALL_PAGES}")
        db.execute("VACUUM")
    session = open_session(root, base=data)
    write_turns(session, range(TURNS - 1))
    for kind, body in turn_records(TURNS - 1)[:-2]:
        session._write(kind, body)
    before = (data / "sessions.db-wal").stat().st_size
    session._write(*turn_records(TURNS - 1)[-2])  # the last record: the answer that completes the last turn
    files = files_of(data)  # copied while the writer is open: the commit is still in the WAL
    session.close()
    after = len(files["sessions.db-wal"])
    assert after > before
    for offset in range(before, after):
        restore_files(data, {**files, "sessions.db-wal": files["sessions.db-wal"][:offset]})
        await tally.check("wal truncated in the last commit", data, root, TURNS - 1, f"at {offset}")
    restore_files(data, files)
    await tally.check("wal intact", data, root, TURNS)


def build_db(tmp_path: Path, name: str) -> tuple[Path, Path, dict[str, bytes], str]:
    data, root = fresh(tmp_path, name)
    session = open_session(root, base=data)
    write_turns(session, range(TURNS))
    session_id = session.id
    session.close()  # checkpointed: everything is in sessions.db
    return data, root, files_of(data), session_id


def turn_of(seq: int) -> int:
    return (seq - 1) // len(turn_records(0))


WRONG_VALUES = [0, 1.5, "", "not json", "[1, 2]", '"a string"', "{}", '{"message": 3}',
                '{"message": {"role": "system", "content": "x"}}', '{"message": {"role": "user", "content": 7}}',
                '{"message": {"role": "assistant", "content": [{"type": "tool_use"}]}}',
                '{"model": 1, "usage": {"input_tokens": "ten"}}', '{"usage": {"input_tokens": -1}}',
                '{"messages": "not a list"}', b"\xff\xfe torn", "é".encode()[:1], '{"message": {"role": "us']


async def row_damages(tmp_path: Path, tally: Tally, rng: random.Random) -> None:
    data, root, files, session_id = build_db(tmp_path, "rows")
    rows = TURNS * len(turn_records(0))
    for case in range(300):
        restore_files(data, files)
        seq = rng.randint(1, rows)
        with sqlite3.connect(data / "sessions.db") as db:
            if case % 3 == 0:
                db.execute("DELETE FROM records WHERE session = ? AND seq = ?", (session_id, seq))
                category = "row deleted"
            elif case % 3 == 1:
                value = rng.choice(WRONG_VALUES)
                db.execute("UPDATE records SET body = ? WHERE session = ? AND seq = ?", (value, session_id, seq))
                category = "row of wrong type"
            else:
                db.execute("UPDATE records SET kind = ? WHERE session = ? AND seq = ?",
                           (rng.choice(["compaction", "usage", "message", "??", ""]), session_id, seq))
                category = "row of the wrong kind"
        await tally.check(category, data, root, turn_of(seq), f"seq {seq}")


async def file_damages(tmp_path: Path, tally: Tally, rng: random.Random) -> None:
    data, root, files, _ = build_db(tmp_path, "file")
    content = files["sessions.db"]
    size = len(content)
    for case in range(120):
        restore_files(data, files)
        path = data / "sessions.db"
        kind = case % 6
        if kind == 0:
            path.write_bytes(content[:rng.randrange(size)])
            category = "db file truncated"
        elif kind == 1:
            at = rng.randrange(size)
            path.write_bytes(content[:at] + rng.randbytes(rng.randint(1, 64)) + content[at + 64:])
            category = "garbage bytes in the db file"
        elif kind == 2:
            path.write_bytes(rng.randbytes(rng.randint(0, 8192)))
            category = "a db that is not a db"
        elif kind == 3:
            path.write_bytes(content[:100] + rng.randbytes(rng.randint(1, 32)) + content[132:])
            category = "garbage in the db header"
        elif kind == 4:
            with sqlite3.connect(path) as db:
                db.execute("DROP TABLE records")
                db.execute("CREATE TABLE records (x)")
            category = "a db with a foreign schema"
        else:
            path.unlink()
            path.mkdir()
            category = "a folder where the db should be"
        # Whatever was damaged, the agent starts; which turns survive depends on what was hit.
        await tally.check(category, data, root, 0, f"case {case}")


# -- the old JSONL logs (migrated on first start) ------------------------------------------


def legacy_log(data: Path, root: Path, content: bytes) -> None:
    resolved = str(root.resolve())
    home = data / "sessions" / f"{root.name}-{hashlib.sha1(resolved.encode()).hexdigest()[:10]}"
    folder = home / "20250101-000000-aaaaaa"
    folder.mkdir(parents=True, exist_ok=True)
    (home / "current").write_text(folder.name)
    (folder / "log.jsonl").write_bytes(content)


def legacy_lines(turns: range) -> list[bytes]:
    return [json.dumps({"type": kind, "at": 1.0, **body}, ensure_ascii=False).encode()
            for i in turns for kind, body in turn_records(i)]


async def legacy_damages(tmp_path: Path, tally: Tally, rng: random.Random) -> None:
    lines = legacy_lines(range(TURNS))
    answer_line = lines[-2]  # the last turn's answer: the record that completes it
    head = b"\n".join(lines[:-2]) + b"\n"
    for offset in range(len(answer_line)):  # every byte offset of the last record (torn UTF-8 included)
        data, root = fresh(tmp_path, "legacy")
        legacy_log(data, root, head + answer_line[:offset])
        await tally.check("old log truncated in its last record", data, root, TURNS - 1, f"at {offset}")
    for case in range(120):
        data, root = fresh(tmp_path, "legacy")
        damaged = list(lines)
        garbage = rng.choice([rng.randbytes(rng.randint(1, 80)), b"[1, 2, 3]", b"null", b'"text"', b"{}",
                              b'{"type": "message"}', b'{"type": 3}', b'{"type": "usage", "usage": {"x": 1}}',
                              b'{"no": "type"}', "{\"type\": \"message\", \"message\": \"é".encode()[:-1]])
        damaged.insert(rng.randint(0, len(damaged)), garbage.replace(b"\n", b" "))
        legacy_log(data, root, b"\n".join(damaged) + b"\n")
        await tally.check("garbage line in an old log", data, root, TURNS, f"case {case}")
    for _ in range(120):
        data, root = fresh(tmp_path, "legacy")
        damaged = list(lines)
        index = rng.randrange(len(damaged))
        record = json.loads(damaged[index])
        field = rng.choice([k for k in record if k != "at"])
        record[field] = rng.choice([None, 1, "x", [], {}, [1], {"role": "robot"}])
        damaged[index] = json.dumps(record).encode()
        legacy_log(data, root, b"\n".join(damaged) + b"\n")
        await tally.check("wrong type in an old log", data, root, index // len(turn_records(0)),
                          f"line {index} {field}")


# -- a full disk ---------------------------------------------------------------------

# One subprocess (imports are slow on a loaded machine); the soft limit is set per case.
FULL_DISK = """
import json, resource, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from test_store_faults import turn_records
from agentls.agent.store import StoreError, open_session
for folder in sys.argv[2:]:
    limit, data = folder.split("=", 1)
    data = Path(data)
    resource.setrlimit(resource.RLIMIT_FSIZE, (int(limit), resource.RLIM_INFINITY))
    session = open_session(data.parent / "ws", base=data)
    completed = 0
    for i in range(40):
        try:
            for kind, body in turn_records(i):
                session._write(kind, body)
        except StoreError:
            break
        completed = i + 1 if session.saved else 0  # an in-memory stand-in saves nothing
    session.close()
    resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    print(json.dumps([str(data), completed]), flush=True)
"""


async def full_disks(tmp_path: Path, tally: Tally) -> None:
    cases = []
    # the schema's size sets where the first turn fits (~230 KB of WAL since the `opened` table); some limits
    # above it, so both sides of full are always seen
    for limit in range(8_192, 260_000, 6_000):
        data, _ = fresh(tmp_path, f"full-{limit}")
        cases.append(f"{limit}={data}")
    done = subprocess.run([sys.executable, "-c", FULL_DISK, str(Path(__file__).parent), *cases],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(results) == len(cases)
    assert any(completed for _, completed in results) and any(c < 40 for _, c in results)  # both sides of full
    for data, completed in results:
        await tally.check("disk full (RLIMIT_FSIZE)", Path(data), Path(data).parent / "ws", completed,
                          f"{data}: {completed} turns")


@pytest.mark.timeout(900)  # ~30 s on an idle machine; a loaded CI box may take several times that
async def test_over_a_thousand_damages_never_stop_the_agent_nor_lose_a_completed_turn(scratch, tally, capsys):
    tmp_path, rng = scratch, random.Random(8)
    timings = {}
    for damages in (wal_truncations, row_damages, file_damages, legacy_damages, full_disks):
        started = time.perf_counter()
        await (damages(tmp_path, tally, rng) if "rng" in damages.__code__.co_varnames else damages(tmp_path, tally))
        timings[damages.__name__] = time.perf_counter() - started
    total = sum(tally.cases.values())
    with capsys.disabled():
        print(f"\nstore faults: {total} damages; failed to start: {len(tally.failed_to_start)}; "
              f"completed turns lost: {len(tally.turns_lost)}; invalid histories: {len(tally.invalid)}")
        for category, count in sorted(tally.cases.items()):
            print(f"  {count:5}  {category}")
        print("  seconds: " + ", ".join(f"{name} {seconds:.1f}" for name, seconds in timings.items()))
    assert total >= 1000
    assert tally.failed_to_start == []
    assert tally.turns_lost == []
    assert tally.invalid == []
