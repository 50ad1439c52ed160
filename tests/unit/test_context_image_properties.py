"""Property: with images in the conversation, every request is still one the API accepts.

The same random sessions as test_context_properties.py (tool rounds, huge
results and answers, idle gaps, automatic and manual compactions, some failing),
with user turns that carry 0-3 images (small, large in pixels, large in bytes,
at the 8000-px edge) through the front door (ContextEngine.add_user_turn, which
refuses what cannot fit). Every request and every summary request passes the
mock API's checks (images included: types, sizes, the many-image rule, counts);
no image is ever cut (each one sent is one the user sent, whole); a request
carries at most KEEP_IMAGES images; and the estimate stays inside the window,
its images counted by their pixels.
"""

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentls.context.images import KEEP_IMAGE_BYTES, KEEP_IMAGES, ImageError, is_image
from agentls.mock_api.validation import request_error
from pictures import gif, image_block, jpeg, png, png_header, webp_extended
from test_context_properties import Driver, op

EXAMPLES = int(os.environ.get("AGENTLS_IMAGE_PROPERTY_EXAMPLES", "300"))

POOL = [
    image_block(png(8, 8)),
    image_block(png(1000, 1000, seed=1)),  # 1,334 tokens
    image_block(png(64, 48, padding=200_000, seed=2)),  # large in bytes, small in pixels
    image_block(jpeg(4000, 3000), "image/jpeg"),  # scaled down: ~1,600 tokens
    image_block(png_header(8000, 100)),  # at the edge of what the API takes
    image_block(gif(20, 30), "image/gif"),
    image_block(webp_extended(1568, 700), "image/webp"),
]
SENT = {b["source"]["data"] for b in POOL}

user_op = st.tuples(st.just("user"), st.tuples(st.integers(0, 400), st.lists(st.integers(0, len(POOL) - 1),
                                                                            min_size=1, max_size=4)))
answer_op = st.tuples(st.just("answer"), st.integers(0, 2_000))
# Runs of prompts with images and their answers, long enough to pass the images a request keeps,
# among everything else.
def flat(groups: list) -> list:
    return [item for group in groups for item in group]


turns = st.lists(st.tuples(user_op, answer_op), min_size=1, max_size=12).map(flat)
image_op = st.one_of(turns, st.one_of(user_op, op).map(lambda one: [one]))
session = st.lists(image_op, min_size=1, max_size=40).map(flat)


class ImageDriver(Driver):
    def user_message(self, arg) -> dict:
        chars, pictures = arg if isinstance(arg, tuple) else (arg, [])
        blocks = [POOL[i] for i in pictures] + [{"type": "text", "text": "u" * (chars + 1)}]
        return {"role": "user", "content": blocks}

    def add_user(self, message: dict) -> None:
        try:
            self.engine.add_user_turn(message["content"])
        except ImageError:
            pass  # refused at the front door: nothing was added, the session goes on

    def check_request(self, messages: list) -> None:
        body = {"model": "claude-test", "max_tokens": 100, "messages": messages}
        assert request_error(body) is None, request_error(body)
        images = [b for m in messages if isinstance(m["content"], list) for b in m["content"] if is_image(b)]
        assert all(b["source"]["data"] in SENT for b in images)  # whole, as sent
        assert len(images) <= KEEP_IMAGES
        assert sum(len(b["source"]["data"]) for b in images) <= KEEP_IMAGE_BYTES


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(ops=session, window=st.sampled_from([6_000, 20_000, 200_000]))
def test_every_request_with_images_is_one_the_api_accepts(ops, window):
    ImageDriver(window).run(ops)
