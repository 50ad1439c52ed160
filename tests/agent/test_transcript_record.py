"""The transcript of record: what the user saw, stored as it happens, apart from the model's history.

Real SDK against the mock Messages API (the demo model where nothing is
scripted), real sessions in SQLite; a "restart" is a new Agent over the same
session.
"""

from __future__ import annotations

import json
import sqlite3

from agentls.agent import events as ev
from agentls.agent.approval import ApprovalDecision, ApprovalPolicy
from agentls.agent.store import SessionStore, open_session
from agentls.agent.transcript import TranscriptEntry
from agentls.context.compact import SUMMARY_MARK
from agentls.mock_api import Reply, Text, ToolUse
from agentls.model.settings import for_demo_model

from conftest import UNBOUND_MODEL, settings_for


def shape(entries: list[TranscriptEntry]) -> list[str]:
    """One word per entry: who, and the names of its cards."""
    out = []
    for e in entries:
        if e.kind == "compaction":
            out.append("divider")
        elif e.kind == "note":
            out.append(f"note:{e.level}")
        else:
            out.append(e.role + "".join(f"+{t.name}" for t in e.tools))
    return out


async def test_every_prompt_card_and_divider_survives_two_compactions_and_a_restart(make_agent, mock_api, workspace):
    (workspace / "notes.md").write_text("# Notes\nThe answer is 42.\n" + "".join(f"line {i}\n" for i in range(80)))
    agent = make_agent(model=UNBOUND_MODEL)
    await agent.run_turn("What does notes.md say?")  # the demo model reads it
    await agent.run_turn("search for answer")
    mock_api.script(Reply([Text("<summary>1. Goal: notes</summary>")]))
    first = await agent.compact()
    await agent.run_turn("edit notes.md")  # reads, then edits (auto-approved here)
    mock_api.script(Reply([Text("<summary>1. Goal: notes, edited</summary>")]))
    second = await agent.compact()
    assert first.compacted and second.compacted
    await agent.run_turn("What does app.py say?")
    live = await agent.transcript()
    session_id = agent.session.id
    await agent.aclose()

    resumed = make_agent(new=False)
    assert resumed.session.id == session_id
    entries = await resumed.transcript()
    assert entries == live, "a restart shows what the panel showed"
    assert shape(entries) == [
        "user", "assistant+read_file", "assistant",
        "user", "assistant+grep_search", "assistant",
        "divider",
        "user", "assistant+read_file", "assistant+edit_file", "assistant",
        "divider",
        "user", "assistant+read_file", "assistant",
    ]
    assert [e.text for e in entries if e.role == "user"] == [
        "What does notes.md say?", "search for answer", "edit notes.md", "What does app.py say?"]
    # the summary is a divider, never a message of the user
    assert not any(SUMMARY_MARK in e.text for e in entries)
    dividers = [e.compaction for e in entries if e.kind == "compaction"]
    assert [d.reason for d in dividers] == ["manual", "manual"]
    assert all(d.tokens_after < d.tokens_before and SUMMARY_MARK in d.summary for d in dividers)
    # cards keep the tool's own summary, the input, the diff with the file's line numbers, the approval
    grep = next(t for e in entries for t in e.tools if t.name == "grep_search")
    assert grep.summary != "grep_search answer" and "answer" in grep.summary and grep.done
    edit = next(t for e in entries for t in e.tools if t.name == "edit_file")
    assert edit.input["path"] == "notes.md" and edit.approval == "approved"
    assert edit.diff.startswith("--- a/notes.md\n+++ b/notes.md\n@@ -80,3 +80,4 @@")  # real lines, 3 of context
    # every user entry is a rewind target by its turn's id
    assert all(e.checkpoint == e.turn_id != "" for e in entries if e.role == "user")
    # the model's history was rewritten twice; the transcript records were never touched
    assert resumed.history()[0]["content"][0]["text"].startswith(SUMMARY_MARK)


async def test_a_rejection_tells_the_model_why_and_the_card_keeps_it(make_agent, mock_api, workspace):
    async def refuse(request):
        assert request.tool_use_id == "toolu_rm"  # asked on that call's card
        return ApprovalDecision(False, reason="not on the main branch")

    mock_api.script(Reply([Text("Cleaning up."), ToolUse("run_shell", {"command": "rm -rf build"}, id="toolu_rm")]),
                    Reply([Text("I will not remove it.")]))
    agent = make_agent(approve=ApprovalPolicy(refuse))
    ends: list[ev.ToolEnd] = []
    await agent.run_turn("clean the build", lambda e: ends.append(e) if isinstance(e, ev.ToolEnd) else None)
    told = mock_api.message_bodies[-1]["messages"][-1]["content"][0]
    assert told["is_error"] and "did not approve" in told["content"]
    assert told["content"].endswith("The user's reason: not on the main branch")
    assert (ends[0].approval, ends[0].reason) == ("rejected", "not on the main branch")
    card = (await agent.transcript())[1].tools[0]
    assert (card.approval, card.reason, card.is_error) == ("rejected", "not on the main branch", True)


async def test_a_repeated_tool_id_is_renamed_and_each_card_shows_its_own_result(make_agent, mock_api, workspace):
    mock_api.script(Reply([ToolUse("read_file", {"path": "notes.md"}, id="toolu_same")]), Reply([Text("notes")]),
                    Reply([ToolUse("read_file", {"path": "app.py"}, id="toolu_same")]), Reply([Text("app")]))
    agent = make_agent()
    await agent.run_turn("read notes")
    await agent.run_turn("read app")
    first, second = [t.id for e in await agent.transcript() for t in e.tools]
    assert first == "toolu_same" and second.startswith("toolu_same_") and second != first
    assert "The answer is 42" in agent.tool_result(first).text
    assert "return 'hello'" in agent.tool_result(second).text
    assert agent.tool_result(second).input == {"path": "app.py"}


async def test_a_session_older_than_the_records_is_rebuilt_with_its_dividers(make_agent, mock_api, workspace):
    (workspace / "notes.md").write_text("# Notes\n" + "a line worth summarising\n" * 80)
    agent = make_agent()
    await agent.run_turn("What does notes.md say?")
    mock_api.script(Reply([Text("<summary>1. Goal: notes</summary>")]))
    assert (await agent.compact()).compacted
    await agent.run_turn("What does app.py say?")
    session_id = agent.session.id
    await agent.aclose()
    with sqlite3.connect(agent.session.db.path) as db:  # as an older version wrote it: no transcript records
        db.execute("DELETE FROM records WHERE session = ? AND kind = 'transcript'", (session_id,))
    resumed = make_agent(new=False)
    entries = await resumed.transcript()
    assert shape(entries) == ["user", "assistant+read_file", "divider", "user", "assistant+read_file"]
    assert [e.text for e in entries if e.role == "user"] == ["What does notes.md say?", "What does app.py say?"]
    assert entries[1].tools[0].result_chars > 0


async def test_the_history_lists_what_cost_says_the_demo_model_free(mock_api, workspace, data_dir):
    from agentls.agent.loop import Agent
    from agentls.agent.workspace import Workspace

    for demo in (True, False):
        settings = settings_for(mock_api)
        if demo:
            settings = for_demo_model(settings, mock_api.base_url)
        agent = Agent(Workspace([workspace]), settings, session=open_session(workspace, new=True))
        await agent.run_turn("What does notes.md say?")
        spent, session_id = agent.cost().usd, agent.session.id
        await agent.aclose()
        listed = SessionStore.open(data_dir)
        try:
            info = listed.info(session_id)
        finally:
            listed.close()
        assert round(info.cost_usd, 9) == round(spent, 9)
        assert (spent == 0) is demo
        rows = sqlite3.connect(agent.session.db.path).execute(
            "SELECT body FROM records WHERE session = ? AND kind = 'usage'", (session_id,)).fetchall()
        assert all("usd" in json.loads(body) for (body,) in rows)
