"""A rewind over LSP asks its conflict question once, and answers with the state it leaves.

The client previews a rewind (agent/checkpointDiff), asks its user about the
conflicting files in its own dialog and names those the user agreed to
overwrite in `overwrite`: the server then asks nothing. A conflict the client
did not name (new since its preview), or any conflict from an older client
that sends no `overwrite`, is asked once through agent/confirm, as before.
The result carries the task list and the checkpoints after the rewind, the
same as agent/todos and agent/checkpoints answer then.
"""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from agentls.mock_api import Reply, Text, ToolUse

from .helpers import options_for, wait_until

ON_DISK = types.ClientCapabilities()  # no workspace/applyEdit: the agent's writes land on disk
TODOS = [{"content": "Rewrite both files", "status": "in_progress"}, {"content": "Test them", "status": "pending"}]


@pytest.mark.parametrize("overwrite, asked", [
    (["app.py", "notes.md"], None),  # the user agreed to both in the client's dialog: nothing asked here
    (None, ["app.py", "notes.md"]),  # an older client: asked once, as before
    (["app.py"], ["notes.md"]),  # notes.md changed since the preview: asked about it alone
], ids=["agreed", "old-client", "new-conflict"])
async def test_a_rewind_asks_about_each_conflict_once_and_returns_the_tasks_and_checkpoints(
        start_editor, mock_api, workspace, overwrite, asked):
    editor = await start_editor(options_for(mock_api), ON_DISK)
    await wait_until(lambda: editor.usages)
    mock_api.script(Reply([ToolUse("todo_write", {"todos": TODOS}),
                           ToolUse("write_file", {"path": "app.py", "content": "print('agent')\n"}),
                           ToolUse("write_file", {"path": "notes.md", "content": "# Agent notes\n"})]),
                    Reply([Text("done")]))
    await editor.request("agent/chat", {"prompt": "plan, then rewrite app.py and notes.md"})
    (checkpoint,) = (await editor.request("agent/checkpoints"))["checkpoints"]
    (workspace / "app.py").write_text("print('the user, after the agent')\n")  # outside the agent
    preview = await editor.request("agent/checkpointDiff", {"checkpoint": checkpoint["id"]})
    assert [(f["path"], f["conflict"]) for f in preview["files"]] == [("app.py", True), ("notes.md", False)]
    (workspace / "notes.md").write_text("# The user's notes, after the preview\n")  # a conflict too, now

    editor.confirms.clear()
    params = {"checkpoint": checkpoint["id"], "restore": "code"}
    if overwrite is not None:
        params["overwrite"] = overwrite
    done = await editor.request("agent/rewind", params)

    assert [c["paths"] for c in editor.confirms] == ([asked] if asked else [])
    assert all(c["kind"] == "rewind" for c in editor.confirms)
    assert sorted(done["restored"]) == ["app.py", "notes.md"] and sorted(done["conflicts"]) == ["app.py", "notes.md"]
    assert not done["cancelled"]
    assert (workspace / "app.py").read_text() == "def main():\n    return 'hello'\n"
    assert (workspace / "notes.md").read_text() == "# Notes\nThe answer is 42.\n"
    # The state after it, without another request: the tasks stay (code only), the turn is marked rewound.
    assert done["todos"] == TODOS == (await editor.request("agent/todos"))["todos"]
    assert done["checkpoints"] == (await editor.request("agent/checkpoints"))["checkpoints"]
    assert [(c["id"], c["kind"], c["rewound"]) for c in done["checkpoints"]] == [
        (checkpoint["id"], "turn", True), (done["undo"], "rewind", False)]

    # The conversation cut back too: the task list the model wrote in that turn is gone with it.
    both = await editor.request("agent/rewind", {"checkpoint": checkpoint["id"], "restore": "both", "overwrite": []})
    assert both["conversation"] and both["transcript"] == [] and both["todos"] == []
    assert (await editor.request("agent/todos"))["todos"] == []
    assert both["checkpoints"] == (await editor.request("agent/checkpoints"))["checkpoints"]
    assert len(editor.confirms) == (1 if asked else 0)  # nothing more was asked


async def test_overwrite_must_be_a_list_of_paths(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api), ON_DISK)
    await wait_until(lambda: editor.usages)
    with pytest.raises(JsonRpcException, match="overwrite must be an array of paths"):
        await editor.request("agent/rewind", {"checkpoint": "c", "restore": "code", "overwrite": "app.py"})
