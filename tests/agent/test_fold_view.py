"""A spent turn folded between compactions (context/fold_turns.py), end to end through the real SDK and the
mock API: the request the API accepts carries one index line instead of the turn, the badge says `folded`
once that request was answered, agent/toolResult shows the line the model sees and the original, and the
model reads the original back by its ref."""

from agentls.agent import events as ev
from agentls.context import ContextConfig
from agentls.context.fold import FOLD_MARK
from agentls.lsp import protocol
from agentls.mock_api import Reply, Text, ToolUse
from conftest import UNBOUND_MODEL

DEEP = "zebra-7731"
WHY = "The notes should say where the answer is; " + "I will read them whole before the code. " * 5


async def test_a_folded_turn_is_one_index_line_its_original_read_back_by_its_ref(make_agent, mock_api, workspace):
    (workspace / "notes.md").write_text("# Notes\n" + "filler line\n" * 400 + f"the token {DEEP} is here\n")
    for name in ("a.py", "b.py", "c.py"):
        (workspace / name).write_text(f"# {name}\n" + "x = 1\n" * 300)
    mock_api.script(
        Reply([Text(WHY), ToolUse("read_file", {"path": "notes.md"}, id="toolu_notes")]),
        *[Reply([Text(f"Now {name}."), ToolUse("read_file", {"path": name})]) for name in ("a.py", "b.py", "c.py")],
        Reply([ToolUse("read_file", {"path": "context://toolu_notes"})]),
        Reply([Text("found it")]),
    )
    config = ContextConfig(clear_at=0.0, clear_keep_recent=1, written_keep_recent=1, min_batch_tokens=0,
                           batch_payoff=0.0)
    agent = make_agent(context=config, model=UNBOUND_MODEL)
    events = []
    await agent.run_turn("read the notes and the code", on_event=events.append)

    bodies = mock_api.message_bodies
    folded_at = next(i for i, body in enumerate(bodies) if FOLD_MARK in str(body["messages"]))
    sent = bodies[folded_at]["messages"]
    assert "toolu_notes" not in {b.get("id") for m in sent for b in m["content"] if isinstance(b, dict)}
    index = next(b["text"] for m in sent if m["role"] == "user" for b in m["content"]
                 if b.get("type") == "text" and b["text"].startswith(FOLD_MARK))
    assert "- read_file notes.md (" in index and "context://toolu_notes" in index
    assert [b["type"] for b in next(m for m in sent if FOLD_MARK in str(m))["content"]][-1] == "text"

    badges = [e for e in events if isinstance(e, ev.LayerApplied) and "toolu_notes" in e.tool_use_ids]
    assert [e.marker for e in badges][-1] == "folded"
    view = protocol.tool_result(agent.tool_result("toolu_notes", True))
    assert (view["marker"], view["layer"]) == ("folded", "fold") and view["sent"]
    assert view["text"] in index and view["ref"] == "context://toolu_notes" and DEEP in view["original"]

    reread = bodies[-1]["messages"][-1]["content"][0]["content"]
    assert DEEP in reread  # read_file of the ref gives the original back
