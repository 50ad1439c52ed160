"""Issue 9, points 3 and 5: what the editor shows of a tool result is what the model was sent.

- a "cleared" badge (a `layer` event) arrives only once the request carrying the
  placeholder was sent and answered, never while it is merely prepared;
- agent/toolResult gives the input, the text as sent, which layer rewrote it and
  when, and the original behind its ref.
"""

import pytest

from agentls.agent import events as ev
from agentls.agent.errors import AgentError
from agentls.context import ContextConfig
from agentls.mock_api import Fault, Reply, Text, ToolUse
from agentls.lsp import protocol
from conftest import UNBOUND_MODEL


def tool_result(agent, tool_use_id, with_original=False):
    """agent/toolResult's answer for the agent's view of one call (None for an unknown id)."""
    view = agent.tool_result(tool_use_id, with_original)
    return protocol.tool_result(view) if view is not None else None


EAGER = ContextConfig(clear_at=0.0, clear_keep_recent=1, clear_keep_named_turns=0, min_batch_tokens=0, batch_payoff=0.0)
DEEP = "zebra-7731"  # sits only deep inside the file, far from its head


def write_notes(workspace) -> None:
    (workspace / "notes.md").write_text("# Notes\n" + "filler line\n" * 400 + f"the token {DEEP} is here\n")


def two_reads(mock_api, workspace) -> None:
    """notes.md then app.py; the request after the second clears the first (EAGER)."""
    write_notes(workspace)
    mock_api.script(
        Reply([ToolUse("read_file", {"path": "notes.md"}, id="toolu_notes")]),
        Reply([ToolUse("read_file", {"path": "app.py"}, id="toolu_app")]),
        Reply([Text("both read")]),
    )


async def test_a_cleared_badge_arrives_only_after_the_request_carrying_it_was_sent(make_agent, mock_api, workspace):
    two_reads(mock_api, workspace)
    agent = make_agent(context=EAGER, model=UNBOUND_MODEL)
    seen = []  # (event, how many requests the API had received when it was emitted)
    await agent.run_turn("read notes then app", on_event=lambda e: seen.append((e, len(mock_api.message_bodies))))
    cleared = [(e, n) for e, n in seen if isinstance(e, ev.LayerApplied) and "toolu_notes" in e.tool_use_ids]
    assert cleared, [type(e).__name__ for e, _ in seen]
    event, received = cleared[0]
    carried = mock_api.message_bodies[received - 1]["messages"][2]["content"][0]["content"]
    assert carried.startswith("[old result cleared"), "the badge came before the request that cleared it"
    assert event.marker == "cleared"


async def test_no_badge_when_the_request_that_would_clear_never_got_through(make_agent, mock_api, workspace):
    write_notes(workspace)
    mock_api.script(
        Reply([ToolUse("read_file", {"path": "notes.md"}, id="toolu_notes")]),
        Reply([ToolUse("read_file", {"path": "app.py"}, id="toolu_app")]),
    )
    agent = make_agent(context=EAGER, max_retries=0)
    events = []

    def sink(event):
        events.append(event)
        if isinstance(event, ev.ToolEnd) and event.tool_use_id == "toolu_app":
            mock_api.inject(Fault.http_status(400))  # the request that would carry the clearing fails

    with pytest.raises(AgentError):
        await agent.run_turn("read notes then app", on_event=sink)
    assert not [e for e in events if isinstance(e, ev.LayerApplied)]
    view = tool_result(agent, "toolu_notes")
    assert view["marker"] == "" and DEEP in view["text"]  # the model last saw it in full


async def test_tool_result_view_gives_input_text_as_sent_layer_and_original(make_agent, mock_api, workspace):
    two_reads(mock_api, workspace)
    agent = make_agent(context=EAGER, model=UNBOUND_MODEL)
    await agent.run_turn("read notes then app")
    view = tool_result(agent, "toolu_notes", True)
    assert view["tool"] == "read_file" and view["input"] == {"path": "notes.md"}
    assert view["sent"] and view["marker"] == "cleared" and view["layer"] == "clear"
    assert view["text"].startswith("[old result cleared") and DEEP not in view["text"]
    assert view["ref"] == "context://toolu_notes" and view["rewrittenAt"].endswith("Z")
    assert DEEP in view["original"] and view["originalChars"] == len(view["original"])
    fresh = tool_result(agent, "toolu_app")
    assert fresh["marker"] == "" and fresh["ref"] == "" and fresh["original"] is None
    assert tool_result(agent, "toolu_nope") is None
