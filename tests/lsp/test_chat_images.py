"""agent/chat with image attachments (docs/protocol.md, "Attachments"): base64 `data`, checked as the API
checks it, sent as an image block before the text, counted by its pixels."""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcException

from agentls.mock_api import Reply, Text
from pictures import b64, gif, png
from .helpers import options_for, wait_until


async def test_an_image_attachment_reaches_the_model_as_an_image_block(start_editor, mock_api, workspace):
    editor = await start_editor(options_for(mock_api))
    mock_api.script(Reply([Text("A small chart.")]))
    screenshot = b64(png(640, 480, padding=200_000))
    await editor.request("agent/chat", {"prompt": "what is this?", "attachments": [
        {"uri": (workspace / "chart.png").as_uri(), "data": screenshot, "mimeType": "image/png"},
        {"uri": "untitled:icon", "data": b64(gif(16, 16))}]})  # the type read from the data

    sent = mock_api.message_bodies[-1]["messages"][-1]["content"]
    assert sent[0] == {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": screenshot}}
    assert sent[1]["source"]["media_type"] == "image/gif" and sent[-1] == {"type": "text", "text": "what is this?"}
    await wait_until(lambda: editor.usages and editor.usages[-1]["used"] > 0)
    assert editor.usages[-1]["used"] < 2_500  # by its pixels: 410 tokens (plus the head), not 270,000 chars of base64

    first = (await editor.request("agent/sessions"))["current"]
    await editor.request("agent/newSession")
    resumed = await editor.request("agent/resume", {"sessionId": first})
    # the transcript of record names each image as it was attached
    assert resumed["transcript"][0]["text"] == ("[image: chart.png, image/png, 640x480 px]\n"
                                                "[image: untitled:icon, image/gif, 16x16 px]\nwhat is this?")


async def test_an_image_the_api_would_refuse_is_invalid_params_and_nothing_is_sent(start_editor, mock_api):
    editor = await start_editor(options_for(mock_api))
    cases = [
        ({"uri": "untitled:a", "data": b64(png(4, 4)), "mimeType": "image/jpeg"}, "not the image/jpeg"),
        ({"uri": "untitled:a", "data": "%%%"}, "not valid base64"),
        ({"uri": "untitled:a", "data": b64(b"hello")}, "not a PNG, JPEG, GIF or WebP"),
        ({"uri": "untitled:a", "data": b64(png(4, 4)), "text": "x"}, "no text or range"),
        ({"uri": "untitled:a", "data": 5}, "attachments[0].data must be a string"),
    ]
    for attachment, why in cases:
        with pytest.raises(JsonRpcException) as failure:
            await editor.request("agent/chat", {"prompt": "x", "attachments": [attachment]})
        assert failure.value.code == -32602 and why in failure.value.message, (attachment, failure.value.message)
    assert mock_api.message_bodies == []
