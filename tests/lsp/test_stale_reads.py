"""Issue 33.3: what the model read earlier is never presented as the file when it no longer is: a file
changed on disk since it was read is named to the model with the next prompt, and the demo model reads it
again instead of answering from memory (a placeholder never stands in for the file's text)."""

from __future__ import annotations

import json

from .helpers import options_for, wait_until

OLD = "# Notes\nfirst version\n"
NEW = "# Notes\nline two, edited by the user\nline three\nline four\nline five\n"


async def test_a_file_changed_since_it_was_read_is_read_again(start_editor, mock_api, workspace):
    (workspace / "notes.md").write_text(OLD)
    editor = await start_editor(options_for(mock_api))  # nothing scripted: the demo model answers
    await wait_until(lambda: editor.usages)
    first = await editor.request("agent/chat", {"prompt": "read notes.md"})
    assert "first version" in first["text"]

    (workspace / "notes.md").write_text(NEW)  # the user edits it (or a restore puts another version back)
    again = await editor.request("agent/chat", {"prompt": "read notes.md"})
    assert "line two, edited by the user" in again["text"] and "5 lines" in again["text"]
    assert "earlier" not in again["text"] and "first version" not in again["text"]
    told = json.dumps(mock_api.message_bodies[-2]["messages"][-1])
    assert "[changed on disk since you read them: notes.md." in told

    third = await editor.request("agent/chat", {"prompt": "read notes.md"})  # unchanged since: from memory
    assert "earlier" in third["text"] and "line two" in third["text"]
    assert "changed on disk" not in json.dumps(mock_api.message_bodies[-1]["messages"][-1])


async def test_a_restart_still_knows_what_was_read_and_notices_a_change_made_meanwhile(
        start_editor, mock_api, workspace):
    """The read ledger is saved with the session: a file the model read before a restart, changed while the
    server was down, is named to the model with the first prompt after it (once), and read again."""
    (workspace / "notes.md").write_text(OLD)
    editor = await start_editor(options_for(mock_api))  # the demo model answers
    await wait_until(lambda: editor.usages)
    first = await editor.request("agent/chat", {"prompt": "read notes.md"})
    assert "first version" in first["text"]
    await editor.client.shutdown_session()

    (workspace / "notes.md").write_text(NEW)  # changed while no server watched
    again = await start_editor(options_for(mock_api))
    await wait_until(lambda: again.usages)
    answer = await again.request("agent/chat", {"prompt": "read notes.md"})
    assert "[changed on disk since you read them: notes.md." in json.dumps(mock_api.message_bodies[-2]["messages"][-1])
    assert "line two, edited by the user" in answer["text"] and "first version" not in answer["text"]

    await again.client.shutdown_session()  # named once: not again after another restart
    third = await start_editor(options_for(mock_api))
    await wait_until(lambda: third.usages)
    await third.request("agent/chat", {"prompt": "hello"})
    assert "changed on disk" not in json.dumps(mock_api.message_bodies[-1]["messages"][-1])


async def test_a_resumed_chat_notices_a_file_changed_while_another_chat_was_open(start_editor, mock_api, workspace):
    (workspace / "notes.md").write_text(OLD)
    editor = await start_editor(options_for(mock_api))
    await wait_until(lambda: editor.usages)
    await editor.request("agent/chat", {"prompt": "read notes.md"})
    reader = (await editor.request("agent/sessions"))["current"]
    await editor.request("agent/newSession")
    (workspace / "notes.md").write_text(NEW)
    await editor.request("agent/resume", {"sessionId": reader})
    answer = await editor.request("agent/chat", {"prompt": "read notes.md"})
    assert "[changed on disk since you read them: notes.md." in json.dumps(mock_api.message_bodies[-2]["messages"][-1])
    assert "line two, edited by the user" in answer["text"]
