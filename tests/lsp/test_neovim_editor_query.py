"""Headless Neovim answers agent/editorQuery with the handler documented in docs/neovim.md.

The module from the doc runs agentls; a stand-in language server
(stand_in_language_server.py) is attached to the same buffer. The scripted
model calls get_diagnostics and find_references; the tool results that reach
the API endpoint come from vim.diagnostic.get and vim.lsp.buf_request_sync.
"""

from __future__ import annotations

import sys
from pathlib import Path

from agentls.mock_api import Reply, Text, ToolUse
from .test_neovim import lua, lua_list, pytestmark, run_driver  # noqa: F401 - skipped without nvim

STAND_IN = Path(__file__).with_name("stand_in_language_server.py")
APP = "local greet = require('greet')\n\ngreet('a')\nprint(BROKEN)\ngreet('b')\n"

DRIVER = """
local agentls = dofile(%(module)s)
agentls.setup({ cmd = %(cmd)s, root_dir = %(root)s,
                init_options = { apiKey = %(key)s, settings = { baseUrl = %(url)s } } })
vim.cmd('edit ' .. vim.fn.fnameescape(%(file)s))
local buf = vim.api.nvim_get_current_buf()
local other = vim.lsp.start_client({ name = 'stand-in', cmd = %(stand_in)s, root_dir = %(root)s })
vim.lsp.buf_attach_client(buf, other)
local out = {}
local ready = vim.wait(60000, function()
  local c = agentls.client()
  return c ~= nil and c.initialized and #vim.diagnostic.get(buf) > 0
end, 20)
if not ready then
  out.error = 'the clients did not start (or no diagnostics came)'
else
  agentls.chat('What is broken, and who calls greet?', function(err, result)
    out.chat = result; out.chat_error = err
  end)
  vim.wait(90000, function() return out.chat ~= nil or out.chat_error ~= nil end, 20)
end
vim.fn.writefile({ vim.fn.json_encode(out) }, %(out)s)
vim.cmd('qa!')
"""


def test_neovim_answers_editor_queries_with_its_language_servers(tmp_path, workspace, data_dir, mock_api):
    (workspace / "app.lua").write_text(APP)
    mock_api.script(Reply([ToolUse("get_diagnostics", {"path": "app.lua"})]),
                    Reply([ToolUse("find_references", {"path": "app.lua", "line": 3, "symbol": "greet"})]),
                    Reply([Text("BROKEN is undefined; greet is called twice.")]))
    result = run_driver(DRIVER, tmp_path, workspace, data_dir, mock_api, file=lua(str(workspace / "app.lua")),
                        stand_in=lua_list([sys.executable, str(STAND_IN)]))
    assert "error" not in result and result.get("chat_error") is None, result
    assert result["chat"]["text"] == "BROKEN is undefined; greet is called twice."
    offered = {tool["name"] for tool in mock_api.message_bodies[0]["tools"]}
    assert {"get_diagnostics", "go_to_definition", "find_references"} <= offered and "find_symbols" not in offered
    diagnostics, references = (body["messages"][-1]["content"][0] for body in mock_api.message_bodies[1:3])
    assert diagnostics["content"].splitlines() == [
        "1 error in app.lua:", "app.lua:4:7 error stand-in(2304): Cannot find name 'BROKEN'."]
    assert references["content"].splitlines() == [
        "3 references to greet (from app.lua:3), declaration included:",
        "app.lua:1: local greet = require('greet')", "app.lua:3: greet('a')", "app.lua:5: greet('b')"]
