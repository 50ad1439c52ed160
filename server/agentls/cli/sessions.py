"""`agentls sessions list | export [ID] | import FILE | vacuum`: the session store from the terminal.

Titles, ids and messages come from outside (renamed, imported): printed through visible(); an export
is ASCII JSON (store/jsonl.py), so it shows no control character either."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from ..agent.store import Database, SessionStore, StoreError, data_dir
from ..agent.store.jsonl import export_jsonl, import_jsonl
from ..agent.visible import visible


def _list(store: SessionStore, workspace: Path | None) -> int:
    sessions = store.sessions(workspace)
    if not sessions:
        print("no sessions" + (f" for {workspace}" if workspace else ""), file=sys.stderr)
    for info in sessions:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.updated))
        flag = " (open)" if info.in_use else ""
        where = "" if workspace else f"  {info.workspace}"
        title = visible(info.title or "(untitled)").replace("\n", " ")  # renamed or imported: from outside
        print(f"{visible(info.id)}  {when}  {info.turns:>3} turns  {info.tokens:>9,} tokens  ${info.cost_usd:.4f}  "
              f"{title}{flag}{visible(where)}")
    return 0


def _export(store: SessionStore, workspace: Path, session_id: str | None) -> int:
    if session_id is None:
        latest = store.sessions(workspace)
        if not latest:
            print(f"agentls: no session for {workspace}", file=sys.stderr)
            return 1
        session_id = latest[0].id
    for line in export_jsonl(store.db, session_id):
        sys.stdout.write(line)
    return 0


def _import(store: SessionStore, workspace: Path, source: str) -> int:
    data = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    session_id, skipped = import_jsonl(store.db, workspace, data)
    note = f" ({skipped} unreadable lines skipped)" if skipped else ""
    print(f"imported as session {session_id} of {visible(str(workspace))}{note}; it is resumed next time "
          f"unless another is more recent (`agentls sessions list`)", file=sys.stderr)
    return 0


def _vacuum(store: SessionStore, limit_mb: float | None) -> int:
    from ..agent.store.prune import store_limit_bytes, vacuum

    if limit_mb is not None and not 0 <= limit_mb <= 1e9:
        print("agentls: --limit must be a number of MB, 0 or more", file=sys.stderr)
        return 2
    limit = int(limit_mb * 1e6) if limit_mb is not None else store_limit_bytes()
    pruned, before, after = vacuum(store.db, limit)
    plural = "" if pruned.sessions == 1 else "s"
    print(f"sessions.db: {before / 1e6:.1f} MB → {after / 1e6:.1f} MB (stored originals of {pruned.sessions} "
          f"session{plural} removed; {pruned.stored / 1e6:.1f} MB of originals kept, limit {limit / 1e6:g} MB)")
    if (kept := pruned.checkpoints) is not None:
        plural = "" if kept.sessions == 1 else "s"
        print(f"checkpoints: {(kept.stored + kept.freed) / 1e6:.1f} MB → {kept.stored / 1e6:.1f} MB (checkpoints of "
              f"{kept.sessions} session{plural} removed, limit {limit / 1e6:g} MB)")
    return 0


def run_sessions(args) -> int:
    workspace = Path(args.workspace).expanduser().resolve()
    database = Database.open(data_dir())
    for problem in database.problems:
        print(f"agentls: {visible(problem)}", file=sys.stderr)
    store = SessionStore(database)
    try:
        if args.action == "list":
            return _list(store, None if args.all else workspace)
        if args.action == "export":
            return _export(store, workspace, args.id)
        if args.action == "vacuum":
            return _vacuum(store, args.limit)
        return _import(store, workspace, args.file)
    except (StoreError, OSError) as error:
        print(f"agentls: {visible(str(error))}", file=sys.stderr)
        return 1
    finally:
        store.close()
