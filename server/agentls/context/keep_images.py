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

Both read where the images are from the history's index (History.images,
kept on every append and rewrite), never by scanning the messages: this runs
before every request, and its work must not grow with the history.
"""

from __future__ import annotations

from collections.abc import Callable

from .blocks import blocks_of
from .history import History
from .images import KEEP_IMAGE_BYTES, KEEP_IMAGES, placeholder

OVER_COUNT = f"let go to keep at most {KEEP_IMAGES} images in a request"
OVER_BYTES = "let go to keep the request under the API's size limit"
OVER_WINDOW = "let go to fit the context window"


def _drop(history: History, i: int, j: int, why: str) -> None:
    block = blocks_of(history.messages[i])[j]
    history.cut_block(i, j, placeholder(block, why))


def keep_within_limits(history: History) -> int:
    """Drop the oldest images beyond the count and size the history keeps; how many went."""
    total, count, dropped = history.image_chars, history.image_count, 0
    for i, j, size in history.image_positions():
        if count <= KEEP_IMAGES and total <= KEEP_IMAGE_BYTES:
            break
        _drop(history, i, j, OVER_COUNT if count > KEEP_IMAGES else OVER_BYTES)
        count, total, dropped = count - 1, total - size, dropped + 1
    return dropped


def drop_to_fit(history: History, over: Callable[[], bool]) -> int:
    """Drop the oldest images before the newest message while `over()`; how many went."""
    last = len(history.messages) - 1
    dropped = 0
    for i, j, _ in history.image_positions():
        if not over() or i >= last:
            break
        _drop(history, i, j, OVER_WINDOW)
        dropped += 1
    return dropped
