"""agent/resume returns the transcript of record: what the user saw, after compactions and a server restart.

The real server process (pytest-lsp), the mock Messages API answering as the
offline demo model where nothing is scripted.
"""

from __future__ import annotations

from agentls.mock_api import Reply, Text, ToolUse

from .helpers import options_for, wait_until

PROMPTS = ("What does notes.md say?", "search for answer", "edit notes.md", "What does app.py say?")


def shape(transcript: list[dict]) -> list[str]:
    out = []
    for e in transcript:
        if e["kind"] == "compaction":
            out.append(f"divider {e['compaction']['reason']}")
        elif e["kind"] == "note":
            out.append(f"note {e['level']}")
        else:
            out.append(e["role"] + "".join(f"+{t['name']}" for t in e["tools"]))
    return out


async def current_transcript(editor) -> list[dict]:
    current = (await editor.request("agent/sessions"))["current"]
    return (await editor.request("agent/resume", {"sessionId": current}))["transcript"]


async def test_a_compacted_conversation_comes_back_whole_after_a_restart(start_editor, mock_api, workspace):
    (workspace / "notes.md").write_text("# Notes\nThe answer is 42.\n" + "".join(f"line {i}\n" for i in range(120)))
    editor = await start_editor(options_for(mock_api))
    await wait_until(lambda: editor.usages)
    await editor.request("agent/chat", {"prompt": PROMPTS[0]})
    await editor.request("agent/chat", {"prompt": PROMPTS[1]})
    mock_api.script(Reply([Text("<summary>1. Goal: read the notes</summary>")]))
    first = await editor.request("agent/compact", {})
    await editor.request("agent/chat", {"prompt": PROMPTS[2]})  # read, then an edit approved in the editor
    mock_api.script(Reply([Text("<summary>1. Goal: notes read and edited</summary>")]))
    second = await editor.request("agent/compact", {})
    assert first["compacted"] and second["compacted"]
    await editor.request("agent/chat", {"prompt": PROMPTS[3]})
    assert [c["kind"] for c in editor.confirms] == ["edit"]
    before = await current_transcript(editor)

    await editor.client.shutdown_session()  # the server stops; a new one opens the same conversation
    again = await start_editor(options_for(mock_api))
    await wait_until(lambda: again.usages)
    transcript = await current_transcript(again)
    assert transcript == before
    assert shape(transcript) == [
        "user", "assistant+read_file", "assistant",
        "user", "assistant+grep_search", "assistant",
        "divider manual",
        "user", "assistant+read_file", "assistant+edit_file", "assistant",
        "divider manual",
        "user", "assistant+read_file", "assistant",
    ]
    assert [e["text"] for e in transcript if e["role"] == "user"] == list(PROMPTS)
    assert not any("Conversation summary" in e["text"] for e in transcript)  # the summary is no message
    dividers = [e["compaction"] for e in transcript if e["kind"] == "compaction"]
    assert [(d["tokensBefore"], d["tokensAfter"]) for d in dividers] == [
        (first["tokensBefore"], first["tokensAfter"]), (second["tokensBefore"], second["tokensAfter"])]
    assert all("read the notes" in d["summary"] or "edited" in d["summary"] for d in dividers)
    cards = {t["name"]: t for e in transcript for t in e["tools"]}
    assert "matching line" in cards["grep_search"]["summary"] or "match" in cards["grep_search"]["summary"]
    edit = cards["edit_file"]
    assert edit["approval"] == "approved" and edit["input"]["path"] == "notes.md"
    assert edit["diff"].splitlines()[2] == "@@ -120,3 +120,4 @@"  # the file's own line numbers, 3 of context
    assert all(t["done"] and not t["isError"] for t in cards.values())
    # every card still names its own call: its input and result come back by its id
    for name, card in cards.items():
        result = await again.request("agent/toolResult", {"toolUseId": card["id"]})
        assert result["tool"] == name and result["input"] == card["input"]
    # and the next turn goes on from the model's compacted history, not from the transcript
    await again.request("agent/chat", {"prompt": "and now?"})
    sent = mock_api.message_bodies[-1]["messages"]
    # (the default model compacts on the server: its compaction block comes first, as returned)
    assert sent[0]["content"][0]["type"] == "compaction" and "notes read and edited" in str(sent[0])
    assert PROMPTS[0] not in str(sent[1:])


async def _read(editor, mock_api, path: str, tool_use_id: str, answer: str) -> None:
    mock_api.script(Reply([ToolUse("read_file", {"path": path}, id=tool_use_id)]), Reply([Text(answer)]))
    await editor.request("agent/chat", {"prompt": f"read {path}"})


async def test_two_conversations_with_the_same_tool_ids_keep_their_own_card_results(start_editor, mock_api,
                                                                                    workspace):
    (workspace / "notes.md").write_text("# Notes\nThe answer is 42.\n" + "note line\n" * 200)
    editor = await start_editor(options_for(mock_api))
    await wait_until(lambda: editor.usages)
    # what the demo model used to do: the same id in every conversation's first turn
    await _read(editor, mock_api, "notes.md", "toolu_demo_001_0", "notes: 42")
    first = (await editor.request("agent/sessions"))["current"]
    second = (await editor.request("agent/newSession"))["sessionId"]
    await _read(editor, mock_api, "app.py", "toolu_demo_001_0", "app: hello")

    for session, expected in ((first, "The answer is 42."), (second, "return 'hello'")):
        resumed = await editor.request("agent/resume", {"sessionId": session})
        (card,) = [t for e in resumed["transcript"] for t in e["tools"]]
        result = await editor.request("agent/toolResult", {"toolUseId": card["id"]})
        assert expected in result["text"], f"{session}: the card shows another conversation's result"

    # in one conversation, after a compaction, the model repeats an id: it is renamed, each card keeps its own
    await editor.request("agent/resume", {"sessionId": first})
    mock_api.script(Reply([Text("<summary>1. Goal: notes</summary>")]))
    assert (await editor.request("agent/compact", {}))["compacted"]
    await _read(editor, mock_api, "app.py", "toolu_demo_001_0", "app again")
    cards = [t for e in await current_transcript(editor) for t in e["tools"]]
    assert [c["id"] for c in cards][0] == "toolu_demo_001_0" and cards[1]["id"].startswith("toolu_demo_001_0_")
    old, new = [await editor.request("agent/toolResult", {"toolUseId": c["id"]}) for c in cards]
    assert old["input"] == {"path": "notes.md"} and old["marker"] == "compacted"
    assert new["input"] == {"path": "app.py"} and "return 'hello'" in new["text"]

    # the demo model itself no longer repeats ids across conversations
    await editor.request("agent/newSession")
    await editor.request("agent/chat", {"prompt": "What does notes.md say?"})
    demo_ids = [t["id"] for e in await current_transcript(editor) for t in e["tools"]]
    await editor.request("agent/newSession")
    await editor.request("agent/chat", {"prompt": "What does notes.md say?"})
    other_ids = [t["id"] for e in await current_transcript(editor) for t in e["tools"]]
    assert demo_ids and other_ids and not set(demo_ids) & set(other_ids)
