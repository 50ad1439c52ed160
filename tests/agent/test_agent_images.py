"""Agent.run_turn with images, through the real SDK against the mock API, and back from the store."""

from __future__ import annotations

import pytest

from agentls.agent.errors import AgentInputError
from agentls.context import ContextConfig
from agentls.context.attachments import Attachment
from agentls.context.images import image_attachment
from agentls.mock_api import Reply
from pictures import b64, png, webp_lossy


async def test_images_go_first_in_the_user_message_and_come_back_with_the_session(make_agent, mock_api):
    mock_api.script(Reply("Two pictures and a file."), Reply("Yes, still them."))
    screenshot = image_attachment(b64(png(800, 600, padding=100_000)), "image/png", "screen.png")
    diagram = image_attachment(b64(webp_lossy(300, 200)), "image/webp")
    agent = make_agent()
    result = await agent.run_turn("compare them", attachments=[Attachment("notes.md", "# Notes"), screenshot, diagram])

    sent = mock_api.message_bodies[0]["messages"][0]["content"]
    assert [b["type"] for b in sent] == ["image", "image", "text", "text"]
    assert sent[0]["source"] == {"type": "base64", "media_type": "image/png", "data": screenshot.data}
    assert sent[-1] == {"type": "text", "text": "compare them"}
    # the meter counts the pictures by their pixels: 640 + 80 tokens, not 133,000 chars of base64
    assert result.usage.prompt_tokens < 5_000  # the base64 counted as text would be over 33,000 tokens
    assert agent.context_usage().categories.user < 1_000
    session_id = agent.session.id
    agent.session.close()

    resumed = make_agent(new=False)
    assert resumed.session.id == session_id
    [entry, _] = await resumed.transcript()
    assert entry.text == "compare them"
    assert [(i.media_type, i.width, i.height) for i in entry.images] == [("image/png", 800, 600),
                                                                       ("image/webp", 300, 200)]
    await resumed.run_turn("still there?")
    again = mock_api.message_bodies[-1]["messages"]
    assert again[0] == mock_api.message_bodies[0]["messages"][0]  # the same bytes: the cache reads them


async def test_images_too_large_for_the_window_are_refused_and_nothing_is_sent(make_agent, mock_api):
    agent = make_agent(context=ContextConfig(window=3_000))  # a message may take 1,350 tokens
    pictures = [image_attachment(b64(png(1000, 1000, seed=i))) for i in range(2)]
    with pytest.raises(AgentInputError, match="tokens"):
        await agent.run_turn("what are these?", attachments=pictures)
    assert mock_api.message_bodies == [] and agent.history() == []
    assert not agent.busy
