"""A 10 KB id from the client is never echoed whole in an error (issue 30, finding 11)."""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcException

from .helpers import options_for, wait_until

LONG_ID = "c" * 10_000


@pytest.mark.parametrize("method,params", [
    ("agent/rewind", {"checkpoint": LONG_ID, "restore": "code"}),
    ("agent/checkpointDiff", {"checkpoint": LONG_ID}),
    ("agent/fork", {"checkpoint": LONG_ID}),
])
async def test_a_ten_kilobyte_checkpoint_id_is_quoted_cut(start_editor, mock_api, method, params):
    editor = await start_editor(options_for(mock_api))
    await wait_until(lambda: editor.usages)
    await editor.request("agent/chat", {"prompt": "hi"})
    with pytest.raises(JsonRpcException) as raised:
        await editor.request(method, params)
    text = str(raised.value)
    assert "no checkpoint" in text and "(10,000 characters)" in text
    assert len(text) < 400 and LONG_ID[:100] not in text
