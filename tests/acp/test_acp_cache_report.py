"""Issue 29 items 4 and 6 in ACP: /cost and /context name why the prompt cache missed and the thinking
the API dropped (the same words as every front end: agent/cache_report.py), and a prefix-mismatch
retry is told in the session's stream.

The texts are checked on a report built from plain data; the retry runs the real agent process with
the ACP SDK's client against the mock.
"""

from __future__ import annotations

import asyncio


from acp_client import EditorClient, agent_env, prompt, running_agent
from agentls.acp import commands
from agentls.agent.cache_report import CacheLedger, facts_of
from agentls.agent.views import ContextDetails
from agentls.agent.runtime import ActiveModel
from agentls.context.report import Categories, ContextReport
from agentls.context.usage import Usage
from agentls.mock_api import Fault, Reply, Text, Thinking, ToolUse
from agentls.model.pricing import CostReport

PREFIX_400 = ("messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different "
              "conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to "
              "\"drop_block\".")


def _report():
    ledger = CacheLedger()
    ledger.add("claude-x", Usage(900, 5, 7000, 0), facts_of(
        {"type": "system_changed", "cache_missed_input_tokens": 6800},
        [{"type": "thinking_dropped", "path": "messages.1.content.0", "reason": "prefix_binding_mismatch"}], []))
    return ledger.report()


def test_cost_and_context_name_the_reasons():
    cost = commands.cost_text(CostReport("claude-x", 1, Usage(900, 5, 7000, 0), 0.03), _report())
    assert "**Prompt cache misses: 1 of 1 requests**" in cost
    assert "- system prompt changed: 1×, 6,800 tokens not read from cache" in cost
    assert "- request 1 (claude-x): 0 read / 7,000 written — missed: system prompt changed" in cost
    assert "Prompt cache misses" not in commands.cost_text(CostReport("claude-x", 1, Usage(), 0.0))
    report = ContextReport(1000, 900, 500, 0.55, "ok", Categories(1, 2, 3, 4, 5, 6), (), "none", 0.8)
    context = commands.context_text(ContextDetails(report, cache=_report()), ActiveModel("claude-x", False, 200_000))
    assert "**Cache:**" in context
    assert "- last miss: request 1 (claude-x): 0 read / 7,000 written — missed: system prompt changed" in context
    assert "- Thinking dropped by the API: 1 block(s) (the conversation before it changed ×1)" in context


async def test_a_prefix_mismatch_retry_is_told_in_the_stream(tmp_path, mock_api, workspace):
    mock_api.script(Reply([Thinking("look first"), ToolUse("read_file", {"path": "notes.md"})]),
                    Reply([Text("It says 42.")]))
    client = EditorClient()
    async with running_agent(client, agent_env(tmp_path, mock_api)) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("What does notes.md say?")), 60)
        mock_api.inject(Fault.http_status(400, error_type="invalid_request_error", message=PREFIX_400))
        mock_api.script(Reply([Text("Still 42.")]))
        answer = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=prompt("And now?")), 60)
    assert answer.stop_reason == "end_turn"
    text = client.text()
    assert "⚠ The API refused a thinking block (messages.1.content.0, the reply that called read_file)" in text
    assert text.endswith("Still 42.")
