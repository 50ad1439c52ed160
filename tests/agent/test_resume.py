"""Issue 22, points 2 and 3 at the agent: a restart resumes from the session's working view.

The engine a restarted agent builds is the one the agent before it left: the
same messages (the layers' rewrites included), the same index of tool
records, the same policy state and meter anchor, so the next request is the
one the old agent would have sent. The view is derived data: a damaged one,
or one a rewind cut the conversation under, gives way to a replay of the
records; messages recorded after it (a crash before the next save) are
appended as the replay would.
"""

from __future__ import annotations

import json
from dataclasses import asdict

import pytest

from agentls.agent import events as ev
from agentls.agent.approval import auto_approve
from agentls.agent.loop import Agent
from agentls.agent.store import INTERRUPTED, open_session
from agentls.agent.store.rewind import cut_after
from agentls.agent.store.views import read_view
from agentls.agent.workspace import Workspace
from agentls.context import ContextConfig
from agentls.context.engine_state import engine_state, message_row
from agentls.mock_api import Reply, Text, ToolUse
from agentls.mock_api.binding import without_cache_control

from conftest import UNBOUND_MODEL, settings_for

SMALL = ContextConfig(window=12_000, output_reserve=0)
FILES = 3


def write_files(workspace) -> None:
    for i in range(FILES):
        (workspace / f"f{i}.txt").write_text("".join(f"file {i} line {j}\n" for j in range(150)))


def agent_on(mock_api, workspace, **model) -> Agent:
    """An agent on the workspace's last session (as a restarted front end opens it)."""
    return Agent(Workspace([workspace]), settings_for(mock_api, force_cache_control=True,
                                                             **{"model": UNBOUND_MODEL, **model}),
                 approve=auto_approve, context=SMALL, session=open_session(workspace))


async def read_turn(agent: Agent, mock_api, turn: int) -> list[ev.AgentEvent]:
    path = f"f{turn % FILES}.txt"
    mock_api.script(Reply([ToolUse("read_file", {"path": path})]), Reply([Text(f"read {path}")]))
    events: list[ev.AgentEvent] = []
    await agent.run_turn(f"turn {turn}: read {path}", on_event=events.append)
    return events


async def rewritten_session(agent: Agent, mock_api, after: int = 1) -> int:
    """Turns until a batch of the layers rewrote results, then `after` more; how many turns."""
    turn = 0
    while turn < 16:
        events = await read_turn(agent, mock_api, turn)
        turn += 1
        if any(isinstance(e, ev.LayerApplied) for e in events):
            break
    else:
        pytest.fail("no layer rewrote anything")
    for _ in range(after):
        await read_turn(agent, mock_api, turn)
        turn += 1
    return turn


def index_of(agent: Agent) -> dict:
    """Everything the layers read of the history."""
    history = agent.engine.history
    return {"records": {i: asdict(r) for i, r in history.records.items()},
            "sets": [list(s) for s in (history.results, history.live, history.stale, history.large,
                                       history.live_inputs, history.live_texts)],
            "latest": dict(history._latest_by_key), "tokens": (history.msg_tokens, history.total_tokens,
                                                               history.category_tokens),
            "layer_of": dict(agent.engine.layer_of)}


async def close(agent: Agent) -> None:
    await agent.aclose()


async def test_a_restarted_agent_has_the_engine_the_last_one_left(mock_api, workspace, data_dir):
    write_files(workspace)
    before = agent_on(mock_api, workspace)
    await rewritten_session(before, mock_api)
    assert any(r.state for r in before.engine.history.records.values()), "the layers rewrote results"
    rows = [message_row(before.engine, i) for i in range(len(before.engine.history))]
    state, index, meter = engine_state(before.engine), index_of(before), before.context_usage()
    await close(before)

    after = agent_on(mock_api, workspace)
    assert after.session.restore(use_view=True).view is not None, "resumed from the working view"
    assert [message_row(after.engine, i) for i in range(len(after.engine.history))] == rows
    assert engine_state(after.engine) == state
    assert index_of(after) == index
    assert after.context_usage() == meter
    # The next request is the one the old agent would have prepared.
    after.engine.add_user_turn([{"type": "text", "text": "next"}])
    prepared = after.engine.prepare(after.clock())
    assert prepared.messages[:len(rows)] == [r["message"] for r in rows] and prepared.batch is None
    await close(after)


async def test_the_engine_ttl_follows_the_requests_and_survives_a_restart(mock_api, workspace, data_dir):
    write_files(workspace)
    agent = agent_on(mock_api, workspace, cache_ttl="1h")
    await read_turn(agent, mock_api, 0)
    assert agent.engine.cache_ttl == "1h"
    assert all(b["cache_control"].get("ttl") == "1h" for b in mock_api.message_bodies[-1]["system"])
    await close(agent)
    again = agent_on(mock_api, workspace)
    assert again.engine.cache_ttl == "1h" and not again.engine.cache_cold
    await close(again)


def damage(data_dir, sql: str) -> None:
    import sqlite3

    connection = sqlite3.connect(data_dir / "sessions.db")
    with connection:
        connection.execute(sql)
    connection.close()


@pytest.mark.parametrize("sql", [
    "UPDATE view_messages SET body = '{not json' WHERE idx = 3",
    "DELETE FROM view_messages WHERE idx = 2",
    "UPDATE views SET state = json_set(state, '$.length', 3)",
    "UPDATE views SET state = json_set(state, '$.cached_ends', json('[99999]'))",
    "UPDATE view_messages SET body = json_set(body, '$.message.role', 'assistant') WHERE idx = 0",
    "UPDATE views SET state = 'null'",
])
async def test_a_damaged_view_gives_way_to_the_records(mock_api, workspace, data_dir, sql):
    write_files(workspace)
    agent = agent_on(mock_api, workspace)
    turns = await rewritten_session(agent, mock_api)
    seen = agent.history()  # with the layers' rewrites, which only the view keeps
    await close(agent)
    damage(data_dir, sql)
    again = agent_on(mock_api, workspace)
    replayed = again.session.restore().messages
    assert replayed != seen and again.history() == replayed  # every record replayed, nothing lost
    assert [m["content"][-1].get("text") for m in again.history() if m["role"] == "user"][::2] == \
        [f"turn {t}: read f{t % FILES}.txt" for t in range(turns)]
    assert read_view(again.session.db, again.session.id) is not None, "and a sound view is written again"
    await close(again)


async def test_a_rewind_that_cuts_under_the_view_makes_it_unusable(mock_api, workspace, data_dir):
    write_files(workspace)
    agent = agent_on(mock_api, workspace)
    for turn in range(3):
        await read_turn(agent, mock_api, turn)
    session = agent.session
    first_answer = next(seq for seq, kind, body in session.db.read(
        "SELECT seq, kind, body FROM records WHERE session = ? ORDER BY seq", (session.id,))
        if kind == "message" and "read f0.txt" in body and '"assistant"' in body)
    cut_after(session.db, session.id, first_answer)  # another window's rewind, say
    await close(agent)
    again = agent_on(mock_api, workspace)
    assert again.history() == again.session.restore().messages
    assert "turn 1" not in json.dumps(again.history()) and "turn 0" in json.dumps(again.history())
    await close(again)


async def test_messages_recorded_after_the_view_are_appended_as_a_replay_would(mock_api, workspace, data_dir):
    write_files(workspace)
    agent = agent_on(mock_api, workspace)
    for turn in range(2):
        await read_turn(agent, mock_api, turn)
    # A crash in the next turn, after its prompt and the model's tool call were recorded.
    agent.session.message({"role": "user", "content": [{"type": "text", "text": "turn 2: read f2.txt"}]})
    agent.session.message({"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_lost", "name": "read_file", "input": {"path": "f2.txt"}}]})
    agent.session.close()
    await agent.client.aclose()
    again = agent_on(mock_api, workspace)
    assert again.session.restore(use_view=True).view is not None
    history = again.history()
    assert history == again.session.restore().messages
    assert history[-1]["content"] == [{"type": "tool_result", "tool_use_id": "toolu_lost", "content": INTERRUPTED,
                                       "is_error": True}]
    # and the next turn goes on from there
    mock_api.script(Reply([Text("carrying on")]))
    await again.run_turn("go on")
    assert "toolu_lost" in json.dumps(mock_api.message_bodies[-1]["messages"])
    await close(again)


async def test_the_task_list_and_instruction_folders_survive_a_restart_from_the_view(mock_api, workspace, data_dir):
    """State recorded long before the view (issue 21's `state` records: the task list, the sub-folders
    whose AGENTS.md applies) is read with it, so the first request after the restart has the same
    system prompt and messages as the last one before it."""
    write_files(workspace)
    (workspace / "sub").mkdir()
    (workspace / "sub" / "AGENTS.md").write_text("Files in sub/ are generated: never edit them.\n")
    (workspace / "sub" / "gen.txt").write_text("generated\n")
    todos = [{"content": "read the files", "status": "in_progress"}, {"content": "report", "status": "pending"}]
    agent = agent_on(mock_api, workspace)
    mock_api.script(Reply([ToolUse("todo_write", {"todos": todos}), ToolUse("read_file", {"path": "sub/gen.txt"})]),
                    Reply([Text("planned")]))
    await agent.run_turn("plan, then read sub/gen.txt")
    for turn in range(2):  # more turns: the view is saved well after the state records
        await read_turn(agent, mock_api, turn)
    last = mock_api.message_bodies[-1]
    assert "never edit them" in json.dumps(last["system"]), "the sub-folder's instructions apply"
    items, meter = list(agent.task_list.items), agent.context_usage()
    await close(agent)

    again = agent_on(mock_api, workspace)
    restored = again.session.restore(use_view=True)
    assert restored.view is not None and restored.messages == [], "resumed from a view after the state records"
    assert list(again.task_list.items) == items and again.engine.pinned == agent.engine.pinned
    assert again.context_usage() == meter, "the meter shows the same figure"
    mock_api.script(Reply([Text("still here")]))
    await again.run_turn("after the restart")
    first = mock_api.message_bodies[-1]
    assert first["system"] == last["system"]
    assert without_cache_control(first["messages"][:len(last["messages"])]) == without_cache_control(last["messages"])
    await close(again)


async def test_a_resumed_transcript_keeps_the_badges_the_cards_had_live(mock_api, workspace, data_dir):
    """Issue 33.4: cleared / snipped badges announced during the turns are on the resumed cards."""
    write_files(workspace)
    before = agent_on(mock_api, workspace)
    turn, badges = 0, {}
    while not badges and turn < 16:
        events = await read_turn(before, mock_api, turn)
        badges = {i: e.marker for e in events if isinstance(e, ev.LayerApplied) for i in e.tool_use_ids}
        turn += 1
    assert badges, "no layer rewrote anything"
    live = {t.id: t.marker for e in await before.transcript() for t in e.tools}
    assert all(live[i] == marker for i, marker in badges.items())
    await close(before)

    after = agent_on(mock_api, workspace)
    resumed = {t.id: t.marker for e in await after.transcript() for t in e.tools}
    assert {i: resumed[i] for i in badges} == badges
    await close(after)
