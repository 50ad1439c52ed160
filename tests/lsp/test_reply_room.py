"""The reply's room in the model's window: on a model with extended thinking, prompt + max_tokens over its
window is a 400 ("input length and `max_tokens` exceed context limit", docs:
about-claude/models/extended-thinking-models). With maxTokens larger than a tenth of the window the
working window must keep the whole reply's room, or a conversation that grows to the limit is refused.

A real server and client against the mock API, which enforces that rule for a model that thinks.
"""

from __future__ import annotations

from agentls.demo.brain import demo_reply
from agentls.mock_api import MockAnthropicServer, mock_model
from agentls.mock_api.tokens import count_input_tokens
from .helpers import options_for

WINDOW = 24_000
MODEL = mock_model("acme-mini-9", window=WINDOW, max_tokens=16_000, thinking=("enabled", "disabled"))


async def test_a_conversation_that_fills_the_window_leaves_max_tokens_of_room(start_editor, workspace):
    for name in "abcdef":
        (workspace / f"{name}.txt").write_text("".join(f"{name} line {i:04d} of a long file to read\n"
                                                       for i in range(300)))
    with MockAnthropicServer(models=[MODEL], responder=demo_reply) as api:  # the demo model reads them
        editor = await start_editor(options_for(api, model="acme-mini-9", maxTokens=8_000))
        for name in "abcdef":
            result = await editor.request("agent/chat", {"prompt": f"Read {name}.txt and tell me what it says."})
            assert result["stopReason"] == "end_turn" and f"{name}.txt" in result["text"], (result, api.refusals)
        bodies = api.message_bodies
        assert api.refusals == []
        asked = [(count_input_tokens(b), b["max_tokens"]) for b in bodies]
        assert max(size for size, _ in asked) > WINDOW // 2, asked  # it did grow towards the limit
        assert all(size + reply <= WINDOW for size, reply in asked), asked
