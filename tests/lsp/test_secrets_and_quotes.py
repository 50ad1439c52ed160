"""Issue 19, finding 10: secrets of any length and shape stay out of what the server writes; a bad
value is quoted back only by a short prefix.

The real server with debug logging: an MCP `headers` field given as a list (malformed, so the
server is ignored) is not logged raw; an `env` value of two characters is masked in the error
that quotes the server's stderr; a 5 MB session id is not echoed back in full.
"""

from __future__ import annotations

import sys

import pytest
from pygls.exceptions import JsonRpcException

from .helpers import options_for, server_env, wait_until

LISTED = "list-secret-7731"
PIN = "q7"
TELLS = "import os, sys; print('the pin is', os.environ['PIN'], file=sys.stderr, flush=True); sys.exit(1)"


async def test_short_and_malformed_secrets_are_masked_and_a_huge_id_is_not_echoed(
        start_editor, mock_api, data_dir, capfd):
    servers = {"listy": {"url": "http://127.0.0.1:9/mcp", "headers": [f"Authorization: Bearer {LISTED}"]},
               "teller": {"command": sys.executable, "args": ["-c", TELLS], "env": {"PIN": PIN}}}
    editor = await start_editor(options_for(mock_api, mcpServers=servers),
                                env=server_env(data_dir, AGENTLS_LOG="debug"))
    await wait_until(lambda: editor.usages)
    warning = next(m.message for m in editor.client.messages if "mcpServers.listy" in m.message)
    assert "`headers` must map names to strings" in warning

    [teller] = (await editor.request("agent/mcpServers", {}))["servers"]
    assert teller["state"] == "failed" and "the pin is" in teller["error"]
    assert f"the pin is {PIN}" not in teller["error"], teller["error"]

    huge = "x" * 5_000_000
    for method in ("agent/resume", "agent/deleteSession", "agent/renameSession"):
        with pytest.raises(JsonRpcException) as refused:
            await editor.request(method, {"sessionId": huge, "title": "t"})
        assert refused.value.code == -32602 and len(refused.value.message) < 200, method
    with pytest.raises(JsonRpcException) as unknown:
        await editor.request("agent/toolResult", {"toolUseId": huge})
    assert len(unknown.value.message) < 200

    await editor.client.shutdown_session()
    logged = capfd.readouterr().err
    assert "Authorization" in logged or "mcpServers" in logged  # the debug log did show the settings
    assert LISTED not in logged
    assert f"the pin is {PIN}" not in logged
