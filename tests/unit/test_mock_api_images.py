"""The mock Messages API and images, through the real `anthropic` SDK: accepted like the real API,
counted by the vision guide's rule, refused with the real API's messages (context/images.py names them)."""

from __future__ import annotations

import http.client
import json

import anthropic
import pytest

from agentls.context.images import MAX_REQUEST_BYTES, image_tokens
from agentls.demo.brain import DEMO_LABEL, demo_reply
from agentls.mock_api import MockAnthropicServer
from pictures import gif, image_block, jpeg, png, png_header, webp_extended


@pytest.fixture(scope="module")
def api():
    with MockAnthropicServer(responder=demo_reply) as server:
        yield server


@pytest.fixture(scope="module")
def sdk(api):
    with anthropic.Anthropic(base_url=api.base_url, api_key="test-key", max_retries=0) as client:
        yield client


def ask(sdk, *blocks, text: str = "what is this?"):
    return sdk.messages.create(model="claude-test", max_tokens=200,
                               messages=[{"role": "user", "content": [*blocks, {"type": "text", "text": text}]}])


def refusal(sdk, *blocks) -> str:
    with pytest.raises(anthropic.BadRequestError) as caught:
        ask(sdk, *blocks)
    return caught.value.body["error"]["message"]


def test_an_image_is_accepted_and_counted_by_its_pixels_not_its_bytes(sdk):
    small = ask(sdk, text="x")
    pictured = ask(sdk, image_block(png(1000, 1000, padding=500_000)), text="x")
    assert pictured.usage.input_tokens - small.usage.input_tokens == image_tokens(1000, 1000) == 1334


def test_every_accepted_type_passes(sdk):
    for data, media_type in ((png(8, 8), "image/png"), (jpeg(640, 480), "image/jpeg"), (gif(4, 4), "image/gif"),
                             (webp_extended(64, 64), "image/webp")):
        assert ask(sdk, image_block(data, media_type)).stop_reason == "end_turn"


@pytest.mark.parametrize("block, message", [
    (image_block(png(4, 4), "image/bmp"),
     "messages.0.content.0.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' "
     "or 'image/webp'"),
    (image_block(png(4, 4), "image/jpeg"),
     "messages.0.content.0.image.source.base64.data: Image does not match the provided media type image/jpeg"),
    ({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "@@not base64@@"}},
     "messages.0.content.0.image.source.base64.data: Input should be valid base64"),
    (image_block(b"plain text, no picture"), "messages.0.content.0.image.source.base64.data: Could not process image"),
    (image_block(png_header(8001, 20)), "messages.0.content.0.image.source.base64.data: At least one of the image "
                                        "dimensions exceed max allowed size: 8000 pixels"),
])
def test_what_the_real_api_refuses_is_refused(sdk, block, message):
    assert refusal(sdk, block) == message


def test_an_image_over_5_mb_of_base64_is_refused(sdk):
    block = image_block(png(4, 4, padding=4_000_000))
    size = len(block["source"]["data"])
    assert refusal(sdk, block) == (f"messages.0.content.0.image.source.base64: image exceeds 5 MB maximum: "
                                   f"{size} bytes > 5242880 bytes")


def test_more_than_twenty_images_must_each_be_at_most_2000_px_and_a_hundred_is_the_most(sdk):
    nineteen = [image_block(png(2, 2, seed=i)) for i in range(19)]
    wide = image_block(png(2001, 2))
    assert ask(sdk, *nineteen, wide).stop_reason == "end_turn"  # 20 images: 2001 px is fine
    assert refusal(sdk, *nineteen, wide, image_block(png(2, 2))) == (
        "messages.0.content.19.image.source.base64.data: At least one of the image dimensions exceed max allowed "
        "size for many-image requests: 2000 pixels")
    assert refusal(sdk, *[image_block(png(2, 2, seed=i)) for i in range(101)]) == (
        "Too much media: 0 document pages + 101 images > 100")


def test_a_request_over_32_mb_is_refused_before_it_is_read(api):
    body = json.dumps({"model": "m", "max_tokens": 10,
                       "messages": [{"role": "user", "content": "x" * MAX_REQUEST_BYTES}]})
    conn = http.client.HTTPConnection("127.0.0.1", api.port, timeout=30)
    conn.request("POST", "/v1/messages", body, {"content-type": "application/json", "x-api-key": "k"})
    response = conn.getresponse()
    payload = json.loads(response.read())
    conn.close()
    assert response.status == 413 and payload["error"]["type"] == "request_too_large"


def test_the_demo_model_says_it_received_an_image_and_what_it_cannot_do(sdk):
    reply = sdk.messages.create(model="claude-test", max_tokens=200, messages=[{"role": "user", "content": [
        image_block(jpeg(1280, 720), "image/jpeg")]}])
    text = reply.content[-1].text
    assert text.startswith(DEMO_LABEL)
    assert "I received 1 image" in text and "image/jpeg, 1280x720 px" in text and "cannot see" in text
