"""The history's image index (History.images) is what a scan of its messages would find, always.

keep_images.py reads the image positions from the index before every request
instead of scanning the history; the index is kept on every append and
rewrite, and a restarted engine (engine_state.restore) rebuilds it.
"""

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentls.context import ContextConfig, ContextEngine, MemoryStore
from agentls.context.engine_state import engine_state, message_row, restore
from agentls.context.history import History
from agentls.context.images import KEEP_IMAGES, image_data_chars, is_image
from pictures import image_block, png
from synth import assistant_text
from test_context_image_properties import ImageDriver, session

EXAMPLES = int(os.environ.get("AGENTLS_IMAGE_PROPERTY_EXAMPLES", "300")) // 3


def scanned(history: History) -> list[tuple[int, int, int]]:
    """(message, block, base64 chars) of every image of a user message, by reading every block."""
    return [(i, j, image_data_chars(block)) for i, message in enumerate(history.messages)
            if message["role"] == "user" and isinstance(message["content"], list)
            for j, block in enumerate(message["content"]) if is_image(block)]


def check_index(history: History) -> None:
    found = scanned(history)
    assert history.image_positions() == found
    assert (history.image_count, history.image_chars) == (len(found), sum(chars for *_, chars in found))


def restarted(engine: ContextEngine) -> ContextEngine:
    """A new engine restored from the rows and state a session keeps (engine_state.py)."""
    rows = [message_row(engine, i) for i in range(len(engine.history))]
    fresh = ContextEngine(config=engine.config, store=engine.store)
    restore(fresh, rows, engine_state(engine))
    return fresh


class IndexDriver(ImageDriver):
    def check_request(self, messages: list) -> None:
        super().check_request(messages)
        check_index(self.engine.history)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(ops=session, window=st.sampled_from([6_000, 20_000, 200_000]))
def test_the_image_index_is_what_a_scan_finds_at_every_request_and_after_a_restart(ops, window):
    driver = IndexDriver(window)
    driver.run(ops)
    check_index(driver.engine.history)
    check_index(restarted(driver.engine).history)


def test_a_restarted_engine_lets_the_same_images_go_as_the_running_one():
    config = ContextConfig(window=200_000)
    running = ContextEngine(config=config, store=MemoryStore())
    for turn in range(KEEP_IMAGES + 3):
        running.add_user_turn([image_block(png(32, 32, seed=turn)), {"type": "text", "text": f"picture {turn}"}])
        running.prepare(now=turn)
        running.append(assistant_text(f"seen {turn}"))
    assert running.images_dropped == 3
    restored = restarted(running)
    assert restored.history.images == running.history.images
    assert (restored.history.image_count, restored.history.image_chars) == (KEEP_IMAGES, running.history.image_chars)
    for engine in (running, restored):  # one more picture: the oldest one kept goes, in both
        engine.add_user_turn([image_block(png(32, 32, seed=99)), {"type": "text", "text": "one more"}])
        check_index(engine.history)
    assert restored.prepare(now=50).messages == running.prepare(now=50).messages
    assert restored.history.image_count == KEEP_IMAGES
