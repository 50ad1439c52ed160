"""A second, independent client: the official TypeScript SDK drives a prompt-and-permission round.

tests/acp/ts_client/client.mjs (node, @agentclientprotocol/sdk) spawns `agentls
acp`; the SDK validates every message the agent sends against the ACP schema,
so the wire format is checked by two implementations (this and the Python
SDK's). Skipped only when node/npm are missing; CI has both (`./run setup`
installs the client's packages, else the test does).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from acp_client import agent_env
from agentls.mock_api import Reply, Text, ToolUse
from pictures import b64, png

# One tests/acp/ts_client/ checkout (its npm ci in the fixture): one pytest-xdist worker runs these tests.
pytestmark = pytest.mark.xdist_group("acp-ts-client")

CLIENT = Path(__file__).resolve().parent / "ts_client"
NODE, NPM = shutil.which("node"), shutil.which("npm")


@pytest.fixture(scope="module")
def ts_client() -> Path:
    if not (NODE and NPM):
        pytest.skip("node/npm not found (install Node 20+)")
    if not (CLIENT / "node_modules" / ".package-lock.json").exists():
        subprocess.run([NPM, "ci", "--no-audit", "--no-fund"], cwd=CLIENT, check=True, capture_output=True,
                       timeout=600)
    return CLIENT / "client.mjs"


def test_the_typescript_sdk_runs_a_prompt_and_permission_round(ts_client, tmp_path, mock_api, workspace):
    mock_api.script(Reply([ToolUse("run_shell", {"command": "touch first.txt"})]), Reply([Text("Refused, fine.")]),
                    Reply([ToolUse("run_shell", {"command": "touch second.txt"})]), Reply([Text("Done.")]))
    picture = b64(png(32, 24))
    proc = subprocess.run([NODE, str(ts_client), sys.executable, str(workspace), "reject_once", "allow_once"],
                          env=agent_env(tmp_path, mock_api, AGENTLS_TS_IMAGE=f"image/png:{picture}"),
                          capture_output=True, text=True, timeout=240, check=False)
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])

    assert out["initialized"]["agentCapabilities"]["loadSession"] is True
    assert out["initialized"]["agentCapabilities"]["promptCapabilities"]["image"] is True
    first = mock_api.message_bodies[0]["messages"][0]["content"]  # the TS client's image, as the model got it
    assert first[0] == {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": picture}}
    assert out["stopReasons"] == ["end_turn", "end_turn"]
    asked = out["permissions"]
    assert [p["toolCall"]["title"] for p in asked] == ["Run `touch first.txt`", "Run `touch second.txt`"]
    assert [o["kind"] for o in asked[0]["options"]] == ["allow_once", "allow_always", "reject_once", "reject_always"]
    assert not (workspace / "first.txt").exists() and (workspace / "second.txt").exists()

    kinds = [u["sessionUpdate"] for u in out["updates"]]
    assert {"available_commands_update", "usage_update", "tool_call", "tool_call_update",
            "agent_message_chunk", "session_info_update"} <= set(kinds)
    calls = [u for u in out["updates"] if u["sessionUpdate"] == "tool_call"]
    assert [c["kind"] for c in calls] == ["execute", "execute"]
    assert [c["toolCallId"] for c in calls] == [p["toolCall"]["toolCallId"] for p in asked]
    ends = [u for u in out["updates"] if u["sessionUpdate"] == "tool_call_update" and u.get("status")
            in ("completed", "failed")]
    assert [e["status"] for e in ends] == ["failed", "completed"]
    assert "".join(u["content"]["text"] for u in out["updates"]
                   if u["sessionUpdate"] == "agent_message_chunk") == "Refused, fine.Done."
    assert [s["sessionId"] for s in out["listed"]["sessions"]] == [out["sessionId"]]
    refused = mock_api.message_bodies[1]["messages"][-1]["content"][0]
    assert refused["is_error"] and "did not approve" in refused["content"]
    assert out["exitCode"] == 0  # stdin closed: the agent left by itself
