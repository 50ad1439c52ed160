"""Images in the context pipeline: counted by their pixels, never cut, let go whole and only when they must.

The images are made byte by byte (tests/pictures.py); the request checks are the
mock API's (`request_error`, which checks images as the real API does).
"""

import pytest

from agentls.agent.store.records import clean_message
from agentls.agent.transcript import transcript
from agentls.context import ContextConfig, ContextEngine, MemoryStore
from agentls.context.attachments import typed_text
from agentls.context.compact import IMAGES_MARK, IMAGES_NOTE, USER_TEXTS_MARK
from agentls.context.images import (IMAGE_MARK, KEEP_IMAGE_BYTES, KEEP_IMAGES, ImageError, image_attachment,
                                    image_tokens, is_image, scaled_size, sniff)
from agentls.context.structure import request_problems
from agentls.context.tokens import Usage
from agentls.mock_api.tokens import count_input_tokens
from agentls.mock_api.validation import request_error
from pictures import b64, gif, image_block, jpeg, png, png_header, webp_extended, webp_lossless, webp_lossy
from synth import assistant_text, user

SUMMARY = "<analysis>x</analysis><summary>1. Goal: look at the screenshots</summary>"


def engine_with(window: int = 200_000, **settings) -> ContextEngine:
    return ContextEngine(config=ContextConfig(window=window, **settings), store=MemoryStore())


def images_in(messages: list[dict]) -> list[dict]:
    return [b for m in messages if isinstance(m["content"], list) for b in m["content"] if is_image(b)]


def valid_for_the_api(messages: list[dict]) -> None:
    assert request_problems(messages) == []
    assert request_error({"model": "claude-test", "max_tokens": 100, "messages": messages}) is None


# ---------------------------------------------------------------- headers and the estimate

@pytest.mark.parametrize("data, expected", [
    (png(64, 48), ("image/png", 64, 48)),
    (jpeg(1200, 800), ("image/jpeg", 1200, 800)),
    (jpeg(640, 480, metadata=200_000), ("image/jpeg", 640, 480)),  # the frame header 200 KB in
    (gif(20, 30), ("image/gif", 20, 30)),
    (webp_lossy(300, 200), ("image/webp", 300, 200)),
    (webp_lossless(301, 201), ("image/webp", 301, 201)),
    (webp_extended(4000, 3000), ("image/webp", 4000, 3000)),
])
def test_the_size_is_read_from_the_header_of_every_accepted_type(data, expected):
    assert sniff(data) == expected
    assert image_attachment(b64(data)).media_type == expected[0]


def test_the_token_estimate_is_the_vision_guides():
    # docs.claude.com/en/docs/build-with-claude/vision: ~width*height/750; 1000x1000 is ~1334 tokens,
    # 200x200 ~54; a long edge over 1568 px or more than ~1,600 tokens is scaled down first.
    assert image_tokens(1000, 1000) == 1334
    assert image_tokens(200, 200) == 54
    assert max(scaled_size(4000, 1000)) <= 1568
    assert 1500 <= image_tokens(4000, 3000) <= 1600
    assert image_tokens(8000, 8000) == image_tokens(4000, 4000)  # the same picture the model sees


# ---------------------------------------------------------------- the front door

@pytest.mark.parametrize("data, media_type, why", [
    (b64(png(4, 4)), "image/jpeg", "not the image/jpeg it was declared as"),
    ("not base64 at all!", "image/png", "not valid base64"),
    (b64(b"just some text"), None, "not a PNG, JPEG, GIF or WebP"),
    (b64(png_header(9000, 10)), None, "at most 8000x8000"),
    (b64(png(4, 4)), "image/bmp", "not accepted"),
    (b64(png(4, 4, padding=4_000_000)), "image/png", "over the API's limit"),
])
def test_an_image_the_api_would_refuse_is_refused_at_the_front_door(data, media_type, why):
    with pytest.raises(ImageError, match=why):
        image_attachment(data, media_type, "shot.png")


def test_a_turn_whose_images_cannot_fit_the_window_is_refused_and_nothing_is_added():
    engine = engine_with(window=4_000)  # a message may take half the usable window: 1,800 tokens
    engine.append(user("hello"))
    engine.append(assistant_text("hi"))
    before = list(engine.history.messages)
    too_many = [image_block(png(1000, 1000, seed=i)) for i in range(2)]  # 2 x 1334 tokens
    with pytest.raises(ImageError, match="tokens"):
        engine.add_user_turn([*too_many, {"type": "text", "text": "what do these show?"}])
    assert engine.history.messages == before
    with pytest.raises(ImageError, match=f"at most {KEEP_IMAGES}"):
        engine_with().add_user_turn([image_block(png(2, 2, seed=i)) for i in range(KEEP_IMAGES + 1)])


# ---------------------------------------------------------------- counting, never cutting

def test_an_image_is_counted_by_its_pixels_not_its_base64():
    engine = engine_with()
    block = image_block(png(64, 48, padding=300_000))  # 400,000 chars of base64, 5 tokens of picture
    engine.add_user_turn([block, {"type": "text", "text": "what is this?"}])
    assert len(block["source"]["data"]) > 400_000
    assert engine.history.total_tokens < 20, engine.history.total_tokens
    assert engine.report().categories.user == engine.history.total_tokens
    # the mock API counts it by the same rule, so the meter and the endpoint agree
    prepared = engine.prepare(now=0)
    assert count_input_tokens({"messages": prepared.messages}) < 20


def test_no_layer_cuts_an_image_even_when_the_request_must_be_cut_to_fit():
    engine = engine_with(window=6_000, output_reserve=0)
    picture = image_block(png(640, 480, padding=50_000))
    engine.add_user_turn([picture, {"type": "text", "text": "a" * 20_000}])  # the text is over its share
    engine.append(assistant_text("b" * 30_000))  # an answer larger than the window
    engine.add_user_turn([{"type": "text", "text": "and now?"}])
    prepared = engine.prepare(now=0)
    valid_for_the_api(prepared.messages)
    assert prepared.estimate <= engine.config.effective_window
    assert images_in(prepared.messages) == [picture]  # whole, byte for byte


def test_the_oldest_images_go_whole_when_the_request_would_carry_too_many():
    engine = engine_with()
    sent = []
    for turn in range(KEEP_IMAGES + 5):
        picture = image_block(png(32, 32, seed=turn))
        sent.append(picture)
        engine.add_user_turn([picture, {"type": "text", "text": f"picture {turn}"}])
        prepared = engine.prepare(now=turn)
        valid_for_the_api(prepared.messages)
        engine.record_usage(Usage(input_tokens=prepared.estimate), now=turn)
        engine.append(assistant_text(f"seen {turn}"))
    kept = images_in(engine.history.messages)
    assert kept == sent[-KEEP_IMAGES:]
    placeholders = [b["text"] for m in engine.history.messages for b in m["content"]
                    if b.get("type") == "text" and b["text"].startswith(IMAGE_MARK)]
    assert len(placeholders) == 5 and all("image/png, 32x32 px" in p for p in placeholders)
    assert engine.images_dropped == 5
    # the stand-in is not the user's words
    assert typed_text(engine.history.messages[0]["content"]) == "picture 0"


def test_the_oldest_images_go_when_their_bytes_would_pass_the_request_size_limit():
    engine = engine_with()
    big = [image_block(png(16, 16, padding=3_600_000, seed=i)) for i in range(6)]  # ~4.8 MB of base64 each
    for i, picture in enumerate(big):
        engine.add_user_turn([picture, {"type": "text", "text": f"big {i}"}])
        prepared = engine.prepare(now=i)
        engine.append(assistant_text("ok"))
        carried = sum(len(b["source"]["data"]) for b in images_in(prepared.messages))
        assert carried <= KEEP_IMAGE_BYTES
    assert images_in(engine.history.messages) == big[-5:]


def test_as_a_last_resort_older_images_go_to_fit_the_window_but_never_the_new_ones():
    engine = engine_with(window=4_500, output_reserve=0)  # 1,334 tokens each: three fit, four do not
    older = [image_block(png(1000, 1000, seed=i)) for i in range(3)]
    for i, picture in enumerate(older):
        engine.add_user_turn([picture, {"type": "text", "text": f"shot {i}"}])
        engine.append(assistant_text("noted"))
    newest = image_block(png(1000, 1000, seed=9))
    engine.add_user_turn([newest, {"type": "text", "text": "and this one?"}])
    prepared = engine.prepare(now=0, allow_compaction=False)
    valid_for_the_api(prepared.messages)
    assert prepared.estimate <= engine.config.effective_window
    assert images_in(prepared.messages) == [*older[1:], newest]  # the oldest went, and only it
    assert prepared.batch is not None


# ---------------------------------------------------------------- compaction

def test_compaction_summarises_older_images_and_keeps_those_in_the_tail():
    engine = engine_with(window=20_000, output_reserve=0)
    old = image_block(png(800, 600, seed=1))
    engine.add_user_turn([old, {"type": "text", "text": "here is the bug"}])
    engine.append(assistant_text("I see a stack trace. " + "x" * 8_000))
    new = image_block(jpeg(320, 200), "image/jpeg")
    engine.add_user_turn([new, {"type": "text", "text": "and after the fix?"}])

    request = engine.summary_request(manual=True)
    valid_for_the_api(request.messages)
    assert images_in(request.messages) == [old, new]  # the summarizer sees what it summarises
    assert IMAGES_NOTE in request.messages[-1]["content"][-1]["text"]
    engine.apply_summary(request, SUMMARY, "manual")

    messages = engine.history.messages
    valid_for_the_api(messages)
    assert images_in(messages) == [new]  # the last prompt is in the kept tail
    summary = messages[0]["content"]
    listed = next(b["text"] for b in summary if b["text"].startswith(IMAGES_MARK))
    assert "image/png, 800x600 px" in listed
    quoted = next(b["text"] for b in summary if b["text"].startswith(USER_TEXTS_MARK))
    assert "here is the bug" in quoted and IMAGE_MARK not in quoted


def test_without_images_the_summary_prompt_is_unchanged():
    engine = engine_with(window=20_000, output_reserve=0)
    for turn in ("question", "next"):
        engine.append(user(turn))
        engine.append(assistant_text("x" * 8_000))
    engine.append(user("last"))
    request = engine.summary_request(manual=True)
    assert IMAGES_NOTE not in str(request.messages)


# ---------------------------------------------------------------- read back

def test_the_transcript_carries_a_prompts_images_and_a_prompt_of_only_images():
    picture = image_block(gif(20, 30), "image/gif")
    entries = transcript([{"role": "user", "content": [picture]}, {"role": "assistant", "content": [
        {"type": "text", "text": "a small gif"}]}])
    assert entries[0].role == "user" and entries[0].text == ""
    assert [(i.media_type, i.width, i.height) for i in entries[0].images] == [("image/gif", 20, 30)]


def test_a_damaged_stored_image_is_left_out_when_a_session_is_restored():
    good = image_block(png(8, 8))
    damaged = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}
    message = clean_message({"role": "user", "content": [good, damaged, {"type": "text", "text": "hi"}]})
    assert message["content"] == [good, {"type": "text", "text": "hi"}]
