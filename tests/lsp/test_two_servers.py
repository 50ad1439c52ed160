"""Two real servers on one workspace (two editor windows), 50 interleaved turns each with the
offline demo model: both conversations complete and separate; the next start is clean."""

from __future__ import annotations

import asyncio
import json
import sqlite3

from lsprotocol import types

from agentls.agent.store.records import replay
from agentls.context.structure import request_problems

TURNS = 50


async def chat_turns(editor, name: str) -> None:
    for turn in range(TURNS):
        await editor.request("agent/chat", {"prompt": f"What does notes.md say? [{name}{turn}]"})


def conversations(data_dir) -> dict[str, list]:
    with sqlite3.connect(data_dir / "sessions.db") as db:
        ids = [row[0] for row in db.execute("SELECT id FROM sessions")]
        return {i: replay(db.execute("SELECT kind, body FROM records WHERE session = ? ORDER BY seq", (i,)).fetchall())
                for i in ids}


async def test_two_servers_fifty_interleaved_turns_each_stay_apart(start_editor, data_dir):
    first = await start_editor({"supportsConfirm": True})
    second = await start_editor({"supportsConfirm": True})
    await asyncio.gather(chat_turns(first, "A"), chat_turns(second, "B"))
    await first.client.shutdown_session()
    await second.client.shutdown_session()

    stored = conversations(data_dir)
    assert len(stored) == 2
    seen = set()
    for restored in stored.values():
        assert restored.skipped == 0 and restored.repairs == 0
        messages = restored.messages
        assert request_problems([*messages, {"role": "user", "content": "next"}]) == []
        text = json.dumps(messages)
        name = "A" if "[A0]" in text else "B"
        other = "B" if name == "A" else "A"
        seen.add(name)
        assert f"[{other}" not in text  # nothing of the other window
        prompts = [m for m in messages if m["role"] == "user" and "What does notes.md say?" in json.dumps(m)]
        assert len(prompts) == TURNS  # every turn, in order, each answered
        assert all(f"[{name}{turn}]" in json.dumps(prompts[turn]) for turn in range(TURNS))
        assert text.count("The answer is 42.") >= TURNS
    assert seen == {"A", "B"}

    third = await start_editor({"supportsConfirm": True})
    result = await third.request("agent/chat", {"prompt": "What does notes.md say? [C]"})
    assert "42" in json.dumps(result) or "42" in "".join(e.get("text", "") for e in third.events)
    assert [m for m in third.client.messages if m.type != types.MessageType.Info] == []  # no damage, no warning
    assert [e for e in third.events if e["kind"] == "error"] == []
