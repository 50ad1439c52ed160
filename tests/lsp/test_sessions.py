"""Conversations as sessions over LSP: list, new, resume, rename, delete; two windows stay apart."""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcException

from agentls.mock_api import Reply, Text, ToolUse
from .helpers import options_for, wait_until

SESSION_FIELDS = {"id", "title", "workspace", "created", "updated", "turns", "tokens", "costUsd", "inUse", "current"}


async def _chat(editor, mock_api, prompt: str, answer: str) -> None:
    mock_api.script(Reply([Text(answer)]))
    await editor.request("agent/chat", {"prompt": prompt})


async def test_list_after_three_conversations_and_resume_restores_messages_and_cost(
        start_editor, mock_api, workspace):
    (workspace / "notes.md").write_text("The answer is 42.\n")
    editor = await start_editor(options_for(mock_api))
    await wait_until(lambda: editor.usages)
    mock_api.script(Reply([ToolUse("read_file", {"path": "notes.md"})]), Reply([Text("It says 42.")]))
    await editor.request("agent/chat", {"prompt": "first: read notes.md"})
    first_cost = await editor.request("agent/cost")
    first = (await editor.request("agent/sessions"))["current"]

    second = (await editor.request("agent/newSession"))["sessionId"]
    await _chat(editor, mock_api, "second conversation about tests", "ok 2")
    third = (await editor.request("agent/newSession"))["sessionId"]
    await _chat(editor, mock_api, "third one, about the build", "ok 3")

    listed = await editor.request("agent/sessions")
    assert listed["current"] == third
    by_id = {s["id"]: s for s in listed["sessions"]}
    assert {first, second, third} <= set(by_id)
    assert all(set(s) == SESSION_FIELDS for s in listed["sessions"])
    assert by_id[first]["title"] == "first: read notes.md" and by_id[first]["turns"] == 1
    assert by_id[third]["current"] and not by_id[first]["current"]
    assert [s["id"] for s in listed["sessions"]][:3] == [third, second, first], "most recent first"
    assert by_id[first]["costUsd"] == pytest.approx(first_cost["usd"], rel=1e-3)
    found = await editor.request("agent/sessions", {"query": "BUILD"})
    assert [s["id"] for s in found["sessions"]] == [third]

    resumed = await editor.request("agent/resume", {"sessionId": first})
    assert resumed["sessionId"] == first
    roles = [(e["role"], e["text"]) for e in resumed["transcript"]]
    # the transcript of record: one entry per reply, the card with the tool's own summary
    assert roles == [("user", "first: read notes.md"), ("assistant", ""), ("assistant", "It says 42.")]
    card = resumed["transcript"][1]["tools"][0]
    assert card["name"] == "read_file" and "notes.md" in card["summary"] and card["summary"] != "read_file notes.md"
    assert card["resultChars"] > 0 and card["done"] and card["input"] == {"path": "notes.md"}
    assert (await editor.request("agent/cost"))["usd"] == pytest.approx(first_cost["usd"])
    # The next turn continues the resumed conversation, at the API too.
    await _chat(editor, mock_api, "and again?", "still 42")
    sent = mock_api.message_bodies[-1]["messages"]
    assert "first: read notes.md" in str(sent[0]) and "third one" not in str(sent)


async def test_rename_and_delete(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api))
    await wait_until(lambda: editor.usages)
    await _chat(editor, mock_api, "a conversation to keep", "ok")
    old = (await editor.request("agent/sessions"))["current"]
    await editor.request("agent/newSession")
    await editor.request("agent/renameSession", {"sessionId": old, "title": "Kept for later"})
    titles = {s["id"]: s["title"] for s in (await editor.request("agent/sessions"))["sessions"]}
    assert titles[old] == "Kept for later"

    current = (await editor.request("agent/sessions"))["current"]
    with pytest.raises(JsonRpcException, match="current session cannot be deleted"):
        await editor.request("agent/deleteSession", {"sessionId": current})
    await editor.request("agent/deleteSession", {"sessionId": old})
    assert old not in {s["id"] for s in (await editor.request("agent/sessions"))["sessions"]}
    with pytest.raises(JsonRpcException, match="no session"):
        await editor.request("agent/resume", {"sessionId": old})
    with pytest.raises(JsonRpcException, match="sessionId is required"):
        await editor.request("agent/resume", {})


async def test_two_windows_do_not_take_each_others_current_session(start_editor, mock_api):
    one = await start_editor(options_for(mock_api))
    await wait_until(lambda: one.usages)
    await _chat(one, mock_api, "window one speaks", "ok 1")
    two = await start_editor(options_for(mock_api))
    await wait_until(lambda: two.usages)
    await _chat(two, mock_api, "window two speaks", "ok 2")

    one_id = (await one.request("agent/sessions"))["current"]
    seen_by_two = await two.request("agent/sessions")
    assert seen_by_two["current"] != one_id
    entry = next(s for s in seen_by_two["sessions"] if s["id"] == one_id)
    assert entry["inUse"] and not entry["current"]
    with pytest.raises(JsonRpcException, match="open in another window"):
        await two.request("agent/resume", {"sessionId": one_id})
    with pytest.raises(JsonRpcException, match="open"):
        await two.request("agent/deleteSession", {"sessionId": one_id})


async def test_a_chat_resumed_without_a_prompt_is_the_one_a_restart_goes_on_with(start_editor, mock_api):
    """Issue 33.1: resume B from the history, send nothing, reload: the server opens B again (not A, the one
    with the last activity), and the next prompt is stored in B."""
    editor = await start_editor(options_for(mock_api))
    await wait_until(lambda: editor.usages)
    await _chat(editor, mock_api, "chat B: the older one", "ok B")
    chat_b = (await editor.request("agent/sessions"))["current"]
    await editor.request("agent/newSession")
    await _chat(editor, mock_api, "chat A: the last one with activity", "ok A")
    chat_a = (await editor.request("agent/sessions"))["current"]
    await editor.request("agent/resume", {"sessionId": chat_b})

    await editor.client.shutdown_session()
    again = await start_editor(options_for(mock_api))
    await wait_until(lambda: again.usages)
    assert (await again.request("agent/sessions"))["current"] == chat_b
    await _chat(again, mock_api, "after the reload", "still B")
    turns = {s["id"]: s["turns"] for s in (await again.request("agent/sessions"))["sessions"]}
    assert turns[chat_b] == 2 and turns[chat_a] == 1
    assert "chat B" in str(mock_api.message_bodies[-1]["messages"])


async def test_two_windows_on_one_folder_each_go_back_to_their_own_chat_after_a_restart(start_editor, mock_api):
    """Issue 33: the chat a window had open is remembered per window (initializationOptions.windowId), not only
    per folder: after both restart, the window that starts first does not take the other's chat."""
    one = await start_editor({**options_for(mock_api), "windowId": "window-one"})
    await wait_until(lambda: one.usages)
    await _chat(one, mock_api, "window one's chat", "ok 1")
    two = await start_editor({**options_for(mock_api), "windowId": "window-two"})
    await wait_until(lambda: two.usages)
    await _chat(two, mock_api, "window two's chat", "ok 2")
    await _chat(one, mock_api, "window one again: the last activity", "ok 1 again")
    chat_one = (await one.request("agent/sessions"))["current"]
    chat_two = (await two.request("agent/sessions"))["current"]
    assert chat_one != chat_two

    await one.client.shutdown_session()
    await two.client.shutdown_session()
    # window one first: the folder's last opened chat is window two's
    one_again = await start_editor({**options_for(mock_api), "windowId": "window-one"})
    await wait_until(lambda: one_again.usages)
    two_again = await start_editor({**options_for(mock_api), "windowId": "window-two"})
    await wait_until(lambda: two_again.usages)
    assert (await two_again.request("agent/sessions"))["current"] == chat_two
    assert (await one_again.request("agent/sessions"))["current"] == chat_one


async def test_a_window_id_that_is_not_a_string_is_named_and_ignored(start_editor, mock_api):
    editor = await start_editor({**options_for(mock_api), "windowId": 7})
    await wait_until(lambda: editor.usages)
    await wait_until(lambda: editor.client.messages)
    assert any("initializationOptions.windowId must be a string" in m.message for m in editor.client.messages)
    await _chat(editor, mock_api, "still works", "ok")
