"""Issue 29 acceptance, through the real server process and the strict stand-in of today's API.

A long session on a model whose thinking is bound to its prefix (claude-sonnet-5-5, thinking on every
reply): a 30K working window, 20–40 KB files read turn after turn, an AGENTS.md edit, a manual compaction
with a focus, an MCP server added mid-session. The strict mock signs every thinking block and refuses (400)
any request whose prefix before a carried block changed, so "0 refusals" is "0 prefix mismatches"; no
request asks for drop_block and no response reports a dropped block. The window holds and every file's fact
stays where the model can see it. The same session on a model whose thinking is not bound uses the
client-side layers (old results rewritten) as before; on a bound model without server-side editing or
compaction only the binding-safe forms are used.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from lsprotocol import types

from agentls.mock_api import MockAnthropicServer, Reply, Text, ToolUse
from agentls.mock_api.binding import thinking_places, without_cache_control
from agentls.context.fold import FOLD_MARK
from agentls.mock_api.models import mock_model
from .helpers import options_for

BOUND = "claude-sonnet-5-5"
UNBOUND = "claude-opus-4-8"  # documented before the prefix check (model/binding.py)
WINDOW = 30_000
FILES = 10
MCP_SERVER = str(Path(__file__).resolve().parent.parent / "mcp_test_server.py")
EDITS = ("clear_tool_uses_20250919", "clear_thinking_20251015")


def fact(index: int) -> str:
    return f"FACT-{index}: the answer of file {index} is {7_000 + 37 * index}"


def user_text(body: dict) -> str:
    """The texts of the last user message (system messages appended after it skipped)."""
    last = next(m for m in reversed(body["messages"]) if m["role"] == "user")
    content = last["content"]
    return content if isinstance(content, str) else json.dumps(content)


def answer(body: dict) -> Reply:
    """The model: read the file a prompt names, then say so; summarise when asked (a client-side summary)."""
    text = user_text(body)
    if "tool_result" in text:
        return Reply([Text("done reading")])
    found = re.search(r"turn \d+: read (file\d+\.py)", text)
    if found and "compaction" not in body:
        return Reply([ToolUse("read_file", {"path": found.group(1)})])
    return Reply([Text("summary: " + "; ".join(fact(i) for i in range(FILES)))])


def write_files(workspace: Path) -> None:
    for i in range(FILES):
        size = 20_000 + 2_000 * i  # 20–38 KB
        filler = "".join(f"# line {j} of file {i}: nothing to see here\n" for j in range(size // 40))
        (workspace / f"file{i}.py").write_text(f"{fact(i)}\n{filler}")
    (workspace / "AGENTS.md").write_text("Answer briefly.\n")


async def run(start_editor, api: MockAnthropicServer, workspace: Path, model: str, turns: int) -> list[dict]:
    """The session; returns the request bodies. Every meter the panel was sent stayed within the window."""
    editor = await start_editor(options_for(api, model=model, contextWindow=WINDOW, cacheControl=True,
                                            cacheDiagnostics=True))
    after_turn: list[int] = []
    for turn in range(turns):
        if turn == turns // 4:
            (workspace / "AGENTS.md").write_text("Answer briefly. Name the file you read.\n")
        if turn == turns // 2:
            await editor.request("agent/compact", {"instructions": "keep every FACT line"})
        if turn == 3 * turns // 4:
            editor.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={
                "agentls": {"baseUrl": api.base_url, "model": model, "contextWindow": WINDOW, "cacheControl": True,
                            "cacheDiagnostics": True,
                            "mcpServers": {"test": {"command": sys.executable, "args": [MCP_SERVER, "stdio"],
                                                    "approval": "always"}}}}))
            listing = await editor.request("agent/mcpServers", {})  # connects it: its tools join at the next turn
            assert [s["state"] for s in listing["servers"]] == ["running"], listing
        path = f"file{turn % FILES}.py"
        result = await editor.request("agent/chat", {"prompt": f"turn {turn}: read {path}"})
        assert result["text"].endswith("done reading"), result
        after_turn.append((await editor.request("agent/context"))["used"])
    assert max(after_turn) <= WINDOW, f"the window held after every turn: {after_turn}"
    return api.message_bodies


def carried_thinking(body: dict) -> int:
    return sum(1 for _ in thinking_places(body.get("system"), body.get("tools"), body["messages"]))


def assert_binding_kept(api: MockAnthropicServer, bodies: list[dict]) -> None:
    assert api.refusals == [], f"the API refused {len(api.refusals)} requests: {api.refusals[:2]}"
    assert not [b for b in bodies if (b.get("thinking") or {}).get("block_binding")], "drop_block was never needed"
    assert max(carried_thinking(b) for b in bodies) > 0, "the requests carried the model's thinking"


def facts_visible(body: dict) -> set[int]:
    text = json.dumps(body["messages"])
    return {i for i in range(FILES) if f"FACT-{i}" in text or str(7_000 + 37 * i) in text}


@pytest.fixture
def bound_api():
    entry = mock_model(BOUND, window=1_000_000, max_tokens=128_000, thinking=("adaptive", "between_tools"),
                       compaction=True, context_management=EDITS)
    with MockAnthropicServer(models=[entry], always_think=True, responder=answer) as api:
        yield api


async def test_a_long_session_on_a_bound_model_never_breaks_a_thinking_block(start_editor, bound_api, workspace):
    write_files(workspace)
    bodies = await run(start_editor, bound_api, workspace, BOUND, turns=40)
    assert_binding_kept(bound_api, bodies)
    # system and tools were built once per conversation: the head changes only with a compaction (which
    # starts the conversation over from its block), never between (cache markers are not content)
    heads = [json.dumps(without_cache_control([b.get("system"), b.get("tools")]), sort_keys=True) for b in bodies]
    changes = [i for i in range(1, len(heads)) if heads[i] != heads[i - 1]]
    compactions = [i for i, b in enumerate(bodies) if "compaction" in b]
    assert len(changes) <= len(compactions), f"the head changed {len(changes)} times, {len(compactions)} compactions"
    # the AGENTS.md edit reached the model as an appended system message
    assert any(m["role"] == "system" and "Name the file you read" in json.dumps(m)
               for b in bodies[-3:] for m in b["messages"]), "the instruction change was appended"
    # the compaction was the API's own (a signed block first), and the window held
    assert any("compaction" in b for b in bodies)
    assert bodies[-1]["messages"][0]["content"][0]["type"] == "compaction"
    # every file's fact is still in front of the model (verbatim, or in the summary)
    assert facts_visible(bodies[-1]) == set(range(FILES))


async def test_an_unbound_model_keeps_the_client_side_layers(start_editor, workspace):
    write_files(workspace)
    entry = mock_model(UNBOUND, window=1_000_000, max_tokens=64_000, thinking=("enabled", "disabled"),
                       thinking_bound=False)
    with MockAnthropicServer(models=[entry], responder=answer) as api:
        bodies = await run(start_editor, api, workspace, UNBOUND, turns=16)
        assert api.refusals == []
    # a result cleared to a placeholder, or its whole turn folded into an index line (fold_turns.py)
    rewritten = [b for b in bodies for m in b["messages"] if m["role"] == "user" and isinstance(m["content"], list)
                 for block in m["content"] if (block.get("type") == "tool_result"
                                               and str(block.get("content", "")).startswith("["))
                 or str(block.get("text", "")).startswith(FOLD_MARK)]
    assert rewritten, "old results were rewritten by the client-side layers, as before"


async def test_a_bound_model_without_server_features_uses_only_binding_safe_forms(start_editor, workspace):
    write_files(workspace)
    entry = mock_model(BOUND, window=1_000_000, max_tokens=128_000, thinking=("adaptive", "between_tools"))
    with MockAnthropicServer(models=[entry], always_think=True, responder=answer) as api:
        bodies = await run(start_editor, api, workspace, BOUND, turns=24)
        assert_binding_kept(api, bodies)
    assert not [b for b in bodies if "context_management" in b or "compaction" in b]
