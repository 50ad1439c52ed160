"""A rewind the server died in before it changed anything (issue 30, finding 8): after a restart it is not
shown as done, and trying it again finds no file changed outside the agent."""

from __future__ import annotations

import pytest
from lsprotocol import types

from agentls.agent.checkpoints.restore import FAULT_ENV
from agentls.mock_api import Reply, Text, ToolUse

from .helpers import options_for, server_env, wait_until

ON_DISK = types.ClientCapabilities()  # no workspace/applyEdit: the agent's writes land on disk


async def test_a_rewind_killed_before_it_changed_anything_is_not_done_and_its_retry_sees_no_conflicts(
        start_editor, mock_api, workspace, data_dir):
    for i in range(5):
        (workspace / f"f{i}.txt").write_text(f"old {i}\n")
    # The server dies (os._exit) after the second temporary file of the rewind: nothing renamed yet.
    editor = await start_editor(options_for(mock_api), ON_DISK, env=server_env(data_dir, **{FAULT_ENV: "prepare:2"}))
    await wait_until(lambda: editor.usages)
    mock_api.script(Reply([ToolUse("run_shell", {"command": "for i in 0 1 2 3 4; do echo agent $i > f$i.txt; done"})]),
                    Reply([Text("done")]))
    await editor.request("agent/chat", {"prompt": "rewrite five files"})
    (checkpoint,) = (await editor.request("agent/checkpoints"))["checkpoints"]
    with pytest.raises(Exception):  # noqa: B017 - the server is gone: whatever error the client reports
        await editor.request("agent/rewind", {"checkpoint": checkpoint["id"], "restore": "code"})
    assert [(workspace / f"f{i}.txt").read_text() for i in range(5)] == [f"agent {i}\n" for i in range(5)]

    again = await start_editor(options_for(mock_api), ON_DISK)
    await wait_until(lambda: again.usages)
    listed = (await again.request("agent/checkpoints"))["checkpoints"]
    assert [(c["id"], c["kind"], c["rewound"]) for c in listed] == [(checkpoint["id"], "turn", False)]

    again.confirms.clear()
    retry = await again.request("agent/rewind", {"checkpoint": checkpoint["id"], "restore": "code"})
    assert retry["conflicts"] == [] and again.confirms == []
    assert sorted(retry["restored"]) == [f"f{i}.txt" for i in range(5)]
    assert [(workspace / f"f{i}.txt").read_text() for i in range(5)] == [f"old {i}\n" for i in range(5)]
