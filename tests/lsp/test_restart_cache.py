"""Issue 22, point 3, through the real server process: a restart costs no cache.

A session whose layers rewrote tool results (a snip batch on a small window)
is restarted; the first request after the restart starts with exactly the
messages of the last request before it (cache markers aside), with the same
system prompt and tools, and the mock API (which bills like Anthropic's
prompt cache, context/prompt_cache.py) reads that whole prefix from its
cache. The meter shows the same figure before and after.
"""

from __future__ import annotations

from agentls.mock_api import Reply, Text, ToolUse
from agentls.mock_api.binding import without_cache_control
from agentls.mock_api.tokens import count_input_tokens
from .helpers import options_for, wait_until, UNBOUND_MODEL

FILES = 3
TURNS_AFTER_THE_BATCH = 1
MAX_TURNS = 16


async def read_turn(editor, mock_api, turn: int) -> None:
    path = f"f{turn % FILES}.txt"  # the same files again and again: older reads go stale, the snip layer's prey
    mock_api.script(Reply([ToolUse("read_file", {"path": path})]), Reply([Text(f"read {path}")]))
    await editor.request("agent/chat", {"prompt": f"turn {turn}: read {path}"})


async def test_the_first_request_after_a_restart_continues_the_last_one_from_the_cache(start_editor, mock_api,
                                                                                        workspace):
    for i in range(FILES):
        (workspace / f"f{i}.txt").write_text("".join(f"file {i} line {j}\n" for j in range(150)))
    # A small window and breakpoints sent to the mock (it caches like the real API).
    options = options_for(mock_api, model=UNBOUND_MODEL, contextWindow=12_000, outputReserve=0, cacheControl=True)
    editor = await start_editor(options)
    await editor.request("agent/context")  # the agent is ready

    turns = 0
    while not any(e["kind"] == "layer" for e in editor.events) and turns < MAX_TURNS:
        await read_turn(editor, mock_api, turns)
        turns += 1
    rewrites = [e for e in editor.events if e["kind"] == "layer"]
    assert rewrites, f"no layer rewrote anything in {turns} turns"
    for _ in range(TURNS_AFTER_THE_BATCH):
        await read_turn(editor, mock_api, turns)
        turns += 1
    last = mock_api.message_bodies[-1]
    rewritten = [b for m in last["messages"] if m["role"] == "user" for b in m["content"]
                 if b.get("type") == "tool_result" and str(b.get("content", "")).startswith("[")]
    assert rewritten, "the last request before the restart carries the layers' rewrites"
    meter = (await editor.request("agent/context"))["used"]
    assert editor.usages[-1]["used"] == meter

    await editor.client.shutdown_session()
    again = await start_editor(options)
    # agent/context waits for the agent to be ready (the first contextUsage is sent right then, too)
    assert (await again.request("agent/context"))["used"] == meter, "the meter shows the same figure"
    await wait_until(lambda: again.usages)
    assert again.usages[0]["used"] == meter

    sent_before = len(mock_api.message_bodies)
    mock_api.script(Reply([Text("still here")]))
    answer = await again.request("agent/chat", {"prompt": "after the restart"})
    first = mock_api.message_bodies[sent_before]
    assert without_cache_control(first["system"]) == without_cache_control(last["system"])
    assert without_cache_control(first["tools"]) == without_cache_control(last["tools"])
    prefix = len(last["messages"])
    assert without_cache_control(first["messages"][:prefix]) == without_cache_control(last["messages"]), \
        "the first request after the restart starts with exactly the messages of the last one before it"
    assert [m["role"] for m in first["messages"][prefix:]] == ["assistant", "user"]
    assert "after the restart" in str(first["messages"][-1])
    # The whole of the last request before the restart is read from the cache.
    assert answer["usage"]["cacheReadTokens"] == count_input_tokens(last)
