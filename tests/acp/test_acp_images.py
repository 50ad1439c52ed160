"""Images through `agentls acp`, driven by the SDK's own client side against the mock API.

A prompt's ImageContentBlock reaches the model as an Anthropic image block
(before the text, its base64 whole), counts in usage_update by its pixels, is
summarised by /compact (the summarizer sees it; the summary names it), is
replayed by a second process's session/load as an image chunk and carried by
its next request; an image the API would refuse is refused at the front door.
"""

from __future__ import annotations

import asyncio

import pytest
from acp import RequestError, schema
from acp_client import EditorClient, agent_env, running_agent
from agentls.context.compact import IMAGES_MARK, IMAGES_NOTE
from agentls.mock_api import Reply
from agentls.mock_api.tokens import count_input_tokens
from pictures import b64, jpeg, png

SCREENSHOT = b64(png(640, 480, padding=300_000))  # 400,000+ chars of base64; 410 tokens of picture


def with_image(text: str, data: str = SCREENSHOT, mime_type: str = "image/png") -> list:
    return [schema.ImageContentBlock(type="image", data=data, mime_type=mime_type),
            schema.TextContentBlock(type="text", text=text)]


def images_of(message: dict) -> list[dict]:
    return [b for b in message["content"] if b.get("type") == "image"]


async def test_an_image_reaches_the_model_is_counted_by_its_pixels_and_is_summarised_by_compact(
        tmp_path, mock_api, workspace):
    mock_api.script(Reply("A login form with an error."), Reply("words " * 2_000), Reply("SUMMARY: a login form."))
    client = EditorClient()
    async with running_agent(client, agent_env(tmp_path, mock_api), compaction=True) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        answer = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=with_image("what is wrong here?")), 60)
        used_after_image = client.of("usage_update")[-1].used
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[schema.TextContentBlock(
            type="text", text="tell me more")]), 60)
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[schema.TextContentBlock(
            type="text", text="/compact")]), 60)

    assert answer.stop_reason == "end_turn"
    first = mock_api.message_bodies[0]["messages"][0]
    assert images_of(first) == [{"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                             "data": SCREENSHOT}}]
    assert first["content"][0]["type"] == "image" and first["content"][-1]["text"] == "what is wrong here?"
    # counted by its pixels (the mock counts by the same documented rule), not its 400 KB of base64 (~100K tokens);
    # the head (system prompt and tool definitions, `task` among them) is most of what is left
    assert count_input_tokens(mock_api.message_bodies[0]) < 2_500
    assert used_after_image < 2_500, used_after_image
    assert len(SCREENSHOT) // 4 > 100_000

    # the default model compacts on the server (it binds thinking and offers compaction): the API's
    # summarizer sees the image and is told it will not be kept
    summary_request = mock_api.message_bodies[2]
    assert images_of(summary_request["messages"][0])[0]["source"]["data"] == SCREENSHOT  # the summarizer saw it
    assert IMAGES_NOTE in summary_request["compaction"]["instructions"]
    [started, finished] = client.of("compaction_update")
    assert finished.status == "completed" and "SUMMARY: a login form." in finished.summary[0].text
    assert IMAGES_MARK not in finished.summary[0].text  # the summary shown is the summary itself


async def test_a_second_process_replays_the_image_and_its_next_request_carries_it(tmp_path, mock_api, workspace):
    photo = b64(jpeg(1280, 720))
    mock_api.script(Reply("A wide photo."))
    env = agent_env(tmp_path, mock_api)
    async with running_agent(EditorClient(), env) as (conn, _):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=with_image("describe it", photo, "image/jpeg")), 60)

    second = EditorClient()
    mock_api.script(Reply("Still a wide photo."))
    async with running_agent(second, env) as (conn, _):
        await asyncio.wait_for(conn.load_session(cwd=str(workspace), session_id=sid, mcp_servers=[]), 60)
        replayed = second.of("user_message_chunk")
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[schema.TextContentBlock(
            type="text", text="and its colours?")]), 60)

    image, text = replayed
    assert isinstance(image.content, schema.ImageContentBlock)
    assert (image.content.mime_type, image.content.data) == ("image/jpeg", photo)
    assert text.content.text == "describe it" and image.message_id == text.message_id
    messages = mock_api.message_bodies[-1]["messages"]
    assert images_of(messages[0])[0]["source"]["data"] == photo
    assert messages[:2] == mock_api.message_bodies[0]["messages"] + messages[1:2]  # the cache carries over


async def test_an_image_the_api_would_refuse_is_refused_before_anything_runs(tmp_path, mock_api, workspace):
    mock_api.script(Reply("Fine."))
    client = EditorClient()
    async with running_agent(client, agent_env(tmp_path, mock_api)) as (conn, process):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        with pytest.raises(RequestError) as refused:
            await asyncio.wait_for(conn.prompt(session_id=sid, prompt=with_image(
                "what is this?", b64(png(8, 8)), "image/jpeg")), 60)
        assert refused.value.code == -32602
        assert "not the image/jpeg it was declared as" in str(refused.value.data)
        with pytest.raises(RequestError) as too_big:
            await asyncio.wait_for(conn.prompt(session_id=sid, prompt=with_image(
                "and this?", b64(png(4, 4, padding=4_000_000)))), 60)
        assert too_big.value.code == -32602 and "5 MB" in str(too_big.value.data)
        answer = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[schema.TextContentBlock(
            type="text", text="hello")]), 60)
        assert process.returncode is None

    assert answer.stop_reason == "end_turn"
    [body] = mock_api.message_bodies  # nothing of the refused prompts was sent, or kept
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hello"}]}]
