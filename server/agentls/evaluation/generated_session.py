"""A long stored conversation for the resume benchmark: N messages in a workspace's session store.

Exchanges of four messages each (a prompt, a reply calling read_file, its
result, an answer) plus the usage record of each call, written straight into
the session database in one transaction (thousands of single-record
transactions would take longer than the benchmark). Every message fits the
window: the working history holds all of them, the hardest case for a resume.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from ..agent.store import open_session, workspace_key

RESULT_LINES = 8  # ~200 chars per tool result: 5,000 messages are ~140K tokens, inside a 200K window


def _exchange(i: int) -> list[tuple[str, dict]]:
    tool_use_id = f"toolu_gen_{i:06d}"
    body = "".join(f"{n:4}  line {n} of module_{i}\n" for n in range(RESULT_LINES))
    usage = {"input_tokens": 20, "output_tokens": 40, "cache_read_input_tokens": 400 * i,
             "cache_creation_input_tokens": 120}
    return [  # in the order the agent records them: the usage of a call before the reply it brought
        ("message", {"message": {"role": "user", "content": [
            {"type": "text", "text": f"Step {i}: what does module_{i}.py do?"}]}}),
        ("usage", {"model": "claude-sonnet-4-5", "usage": usage}),
        ("message", {"message": {"role": "assistant", "content": [
            {"type": "text", "text": "Let me read it."},
            {"type": "tool_use", "id": tool_use_id, "name": "read_file", "input": {"path": f"module_{i}.py"}}]}}),
        ("message", {"message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool_use_id, "content": body}]}}),
        ("usage", {"model": "claude-sonnet-4-5", "usage": usage}),
        ("message", {"message": {"role": "assistant", "content": [
            {"type": "text", "text": f"module_{i}.py defines one helper, used by module_{i + 1}.py."}]}}),
    ]


def generate_session(root: Path, data_dir: Path, messages: int) -> str:
    """Store a conversation of `messages` messages (a multiple of 4) for the workspace `root`; its id."""
    session = open_session(root, base=data_dir, new=True)
    try:
        rows = [record for i in range(max(1, messages // 4)) for record in _exchange(i)]
        now = time.time()
        with session.db.transaction() as connection:
            connection.execute("INSERT OR IGNORE INTO sessions (id, workspace, title, created, updated, turns) "
                               "VALUES (?, ?, ?, ?, ?, ?)", (session.id, workspace_key(root),
                                                             f"generated: {messages} messages", now, now,
                                                             messages // 4))
            connection.executemany("INSERT INTO records (session, seq, kind, at, body) VALUES (?, ?, ?, ?, ?)",
                                   [(session.id, seq, kind, now, json.dumps(body))
                                    for seq, (kind, body) in enumerate(rows, start=1)])
        return session.id
    finally:
        session.close()
