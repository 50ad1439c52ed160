"""What the history does about images: it never cuts one, it lets the oldest go whole.

An image's base64 is never cut (a cut image is no image, and the API refuses
it). Two rules replace the oldest images, each by a placeholder naming it
(images.placeholder; the session log keeps the original):

- a request carries at most images.KEEP_IMAGES images and KEEP_IMAGE_BYTES of
  base64, so the API's 100-image, many-image (2000 px) and 32-MB limits are never
  reached by a long conversation (a request refused once is refused forever,
  the summary request included);
- the last resort (fit.py's, when every text is cut and the request is still
  over the window): the oldest images before the newest message go.

The newest user message's images are never dropped: the front door
(ContextEngine.add_user_turn) refused that turn if they could not fit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from .blocks import blocks_of
from .history import History
from .images import KEEP_IMAGE_BYTES, KEEP_IMAGES, image_data_chars, is_image, placeholder

OVER_COUNT = f"let go to keep at most {KEEP_IMAGES} images in a request"
OVER_BYTES = "let go to keep the request under the API's size limit"
OVER_WINDOW = "let go to fit the context window"


def image_positions(history: History) -> Iterator[tuple[int, int]]:
    """(message, block) of every image in the history, oldest first."""
    for i, message in enumerate(history.messages):
        if message.get("role") != "user" or isinstance(message.get("content"), str):
            continue
        for j, block in enumerate(blocks_of(message)):
            if is_image(block):
                yield i, j


def _drop(history: History, i: int, j: int, why: str) -> None:
    block = blocks_of(history.messages[i])[j]
    history.cut_block(i, j, placeholder(block, why))


def keep_within_limits(history: History) -> int:
    """Drop the oldest images beyond the count and size the history keeps; how many went."""
    found = list(image_positions(history))
    sizes = [image_data_chars(blocks_of(history.messages[i])[j]) for i, j in found]
    total, count, dropped = sum(sizes), len(found), 0
    for (i, j), size in zip(found, sizes):
        if count <= KEEP_IMAGES and total <= KEEP_IMAGE_BYTES:
            break
        _drop(history, i, j, OVER_COUNT if count > KEEP_IMAGES else OVER_BYTES)
        count, total, dropped = count - 1, total - size, dropped + 1
    return dropped


def drop_to_fit(history: History, over: Callable[[], bool]) -> int:
    """Drop the oldest images before the newest message while `over()`; how many went."""
    last = len(history.messages) - 1
    dropped = 0
    for i, j in list(image_positions(history)):
        if not over() or i >= last:
            break
        _drop(history, i, j, OVER_WINDOW)
        dropped += 1
    return dropped
