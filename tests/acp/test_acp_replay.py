"""Issue 32: session/load in a new process replays what the live session showed, after a /compact too —
the tool output (never "(empty)"), the blank lines between a turn's text blocks, the compaction."""

from __future__ import annotations

import asyncio
import re

from acp_client import EditorClient, agent_env, prompt, running_agent
from agentls.mock_api import Reply, Text, ToolUse


async def test_after_compact_a_load_in_a_new_process_replays_the_reads_output_and_the_blank_lines(
        tmp_path, mock_api, workspace):
    long = "words " * 2000
    mock_api.script(Reply([Text("Reading the notes."), ToolUse("read_file", {"path": "notes.md"})]),
                    Reply(f"First answer. {long}"), Reply(f"Second answer. {long}"), Reply("SUMMARY: three turns."))
    env = agent_env(tmp_path, mock_api)
    live = EditorClient()
    async with running_agent(live, env) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        for text in ("read the notes", "two", "/compact"):
            await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt(text)), 60)
    assert "Reading the notes.\n\nFirst answer." in live.text()
    [live_call] = live.of("tool_call")

    loaded = EditorClient()
    async with running_agent(loaded, env) as (conn, _):
        await asyncio.wait_for(conn.load_session(cwd=str(workspace), session_id=sid, mcp_servers=[]), 60)
    assert "Reading the notes.\n\nFirst answer." in loaded.text()  # the blank line the live stream had
    figures = re.findall(r"\[compacted: \d+ → \d+ tokens\]|Compacted: [\d,]+ → [\d,]+ tokens", live.text())
    assert len(figures) == 1, live.text()[-400:]  # the figure stated once
    [call] = loaded.of("tool_call")
    assert call.tool_call_id == live_call.tool_call_id and call.status == "completed"
    shown = "\n".join(c.content.text for c in call.content if c.type == "content" and c.content.type == "text")
    assert "The answer is 42." in shown and "(empty)" not in shown


async def test_the_demo_models_compaction_is_a_summary_and_its_load_replays_what_was_shown(tmp_path, workspace):
    (workspace / "big.txt").write_text("".join(f"line {n}: some words to fill the context\n" for n in range(3000)))
    env = agent_env(tmp_path, None)  # no key: the offline demo model
    live = EditorClient()
    async with running_agent(live, env) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        for text in ("read big.txt", "read notes.md", "/compact"):
            await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt(text)), 60)
    said = live.text()
    compacted = said[said.index("[compacting"):]
    assert "Stop working on the task" not in compacted and "You said" not in compacted  # no echo, no help text
    assert "read big.txt" in compacted and "`read_file` big.txt" in compacted  # a summary of this conversation
    assert len(re.findall(r"\[compacted: \d+ → \d+ tokens\]|Compacted: [\d,]+ → [\d,]+ tokens", said)) == 1

    loaded = EditorClient()
    async with running_agent(loaded, env) as (conn, _):
        await asyncio.wait_for(conn.load_session(cwd=str(workspace), session_id=sid, mcp_servers=[]), 60)
    assert "Reading `big.txt`.\n\n**big.txt** has" in loaded.text()  # the blank line between the replies, one label
    first = loaded.of("tool_call")[0]
    shown = "\n".join(c.content.text for c in first.content if c.type == "content" and c.content.type == "text")
    assert "line 0: some words" in shown and "(empty)" not in shown
