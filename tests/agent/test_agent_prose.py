"""The agent's own old reasoning, cleared from the context, reads back through read_file (real SDK, mock API)."""

from agentls.context import ContextConfig
from agentls.context.store import text_ref
from agentls.mock_api import Reply, Text, ToolUse
from conftest import UNBOUND_MODEL


async def test_old_reasoning_is_cleared_and_read_back_by_its_ref(make_agent, mock_api):
    thought = "Let me think about where the parser loses the last token. " * 12
    ref = text_ref(thought)
    mock_api.script(
        Reply([Text(thought), ToolUse("list_files", {"path": "."})]),
        Reply([ToolUse("list_files", {"path": "."})]),
        Reply([ToolUse("read_file", {"path": ref})]),
        Reply([Text("done")]),
    )
    agent = make_agent(context=ContextConfig(clear_at=0.0, batch_payoff=0.0, written_keep_recent=1),
                       model=UNBOUND_MODEL)
    await agent.run_turn("think, then look")
    first_sent = mock_api.message_bodies[0]["messages"]
    last_sent = mock_api.message_bodies[-1]["messages"]
    assert mock_api.message_bodies[1]["messages"][1]["content"][0]["text"] == thought  # still recent then
    placeholder = last_sent[1]["content"][0]["text"]
    assert placeholder.startswith("[earlier reasoning cleared") and ref in placeholder
    assert last_sent[1]["content"][1]["type"] == "tool_use"  # the call itself stays
    reread = last_sent[-1]["content"][0]["content"]
    assert thought.strip() in reread
    assert len(first_sent) == 1
