"""A real third-party client: headless Neovim runs the Lua module from docs/neovim.md against the server.

Neovim (Debian's 0.7.2 in CI: `apt-get install -y neovim`) starts `python -m
agentls serve --stdio` through the module's setup(), sends agent/chat and
agent/cost with client.request, and writes what it got to a JSON file.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agentls.mock_api import Reply, Text, ToolUse
from .helpers import SECRET, server_env

NVIM = shutil.which("nvim")
DOC = Path(__file__).resolve().parents[2] / "docs" / "neovim.md"
pytestmark = pytest.mark.skipif(NVIM is None, reason="nvim not installed (apt-get install -y neovim)")

DRIVER = """
local agentls = dofile(%(module)s)
agentls.setup({ cmd = %(cmd)s, root_dir = %(root)s,
                init_options = { apiKey = %(key)s, settings = { baseUrl = %(url)s } } })
vim.cmd('edit ' .. vim.fn.fnameescape(%(file)s))
local out = {}
local ready = vim.wait(60000, function() local c = agentls.client(); return c ~= nil and c.initialized end, 20)
if not ready then
  out.error = 'the client did not initialize'
else
  agentls.chat('What does notes.md say?', function(err, result) out.chat = result; out.chat_error = err end)
  vim.wait(60000, function() return out.chat ~= nil or out.chat_error ~= nil end, 20)
  agentls.request('agent/cost', nil, function(err, result) out.cost = result; out.cost_error = err end)
  vim.wait(30000, function() return out.cost ~= nil or out.cost_error ~= nil end, 20)
  vim.wait(5000, function() return agentls.status ~= nil end, 20)
  out.buffer = table.concat(vim.api.nvim_buf_get_lines(agentls.chat_buffer(), 0, -1, false), '\\n')
  out.statusline = agentls.statusline()
end
vim.fn.writefile({ vim.fn.json_encode(out) }, %(out)s)
vim.cmd('qa!')
"""


def lua(value) -> str:
    return json.dumps(value)  # a JSON string or list of strings is a valid Lua literal here


def module_from_doc() -> str:
    blocks = re.findall(r"```lua\n(.*?)```", DOC.read_text(), re.S)
    assert blocks and "return M" in blocks[0], "docs/neovim.md must start with the module's lua block"
    return blocks[0]


def lua_list(items: list[str]) -> str:
    return "{ " + ", ".join(lua(item) for item in items) + " }"


def run_driver(template: str, tmp_path: Path, workspace: Path, data_dir: Path, mock_api, **values: str) -> dict:
    """Run a driver script (agentls from the doc's module, the mock API as the model); what it wrote."""
    module = tmp_path / "agentls.lua"
    module.write_text(module_from_doc())
    out = tmp_path / "out.json"
    driver = tmp_path / "driver.lua"
    driver.write_text(template % {
        "module": lua(str(module)), "cmd": lua_list([sys.executable, "-m", "agentls", "serve", "--stdio"]),
        "root": lua(str(workspace)), "key": lua(SECRET), "url": lua(mock_api.base_url), "out": lua(str(out)),
        **values})
    env = server_env(data_dir)
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[name] = str(tmp_path / name.lower())
    subprocess.run([NVIM, "--headless", "--clean", "-c", f"luafile {driver}"], env=env, cwd=workspace,
                   timeout=240, check=False, capture_output=True)
    return json.loads(out.read_text())


def test_neovim_runs_the_documented_module(tmp_path, workspace, data_dir, mock_api):
    mock_api.script(Reply([Text("Reading it."), ToolUse("read_file", {"path": "notes.md"})]),
                    Reply([Text("It says the answer is 42.")]))
    result = run_driver(DRIVER, tmp_path, workspace, data_dir, mock_api, file=lua(str(workspace / "notes.md")))
    assert "error" not in result, result
    chat = result["chat"]
    assert chat["text"] == "Reading it.\n\nIt says the answer is 42." and chat["stopReason"] == "end_turn"
    assert set(chat["usage"]) == {"inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens"}
    assert result["cost"]["requests"] == 2 and result["cost"]["usd"] > 0
    assert "It says the answer is 42." in result["buffer"] and "⏺ read_file notes.md" in result["buffer"]
    assert result["statusline"].startswith("agent ") and "K/200K" in result["statusline"]
    tool_result = mock_api.message_bodies[-1]["messages"][-1]["content"][0]
    assert "The answer is 42." in tool_result["content"]


VISIBLE_DRIVER = """
local agentls = dofile(%(module)s)
local out = {}
for i, text in ipairs(vim.fn.json_decode(%(inputs)s)) do out[i] = agentls.visible(text) end
vim.fn.writefile({ vim.fn.json_encode(out) }, %(out)s)
vim.cmd('qa!')
"""


def test_neovim_confirm_handler_escapes_like_the_server(tmp_path):
    """Issue 8, point 5: the documented confirm handler shows hidden characters escaped."""
    from agentls.agent.visible import visible

    module = tmp_path / "agentls.lua"
    module.write_text(module_from_doc())
    assert "M.visible(req.command)" in module.read_text() and "M.visible(req.diff)" in module.read_text()
    inputs = ["rm -rf ~/precious\r\x1b[2Kls -la", "a\bb\x00c\x7fd\x9be\u00ad", "safe\u202e.txt\u2066x\u200by\u2028",
              "\ufeffline 1\n\tline 2 café 😀 → λ\u061c"]
    out = tmp_path / "out.json"
    driver = tmp_path / "driver.lua"
    driver.write_text(VISIBLE_DRIVER % {"module": lua(str(module)), "inputs": lua(json.dumps(inputs)),
                                        "out": lua(str(out))})
    subprocess.run([NVIM, "--headless", "--clean", "-c", f"luafile {driver}"], cwd=tmp_path,
                   timeout=60, check=False, capture_output=True)
    assert json.loads(out.read_text()) == [visible(text) for text in inputs]
