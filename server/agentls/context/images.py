"""Images in a user turn: what the API accepts, what one costs in tokens, how one is read back.

An image travels as an Anthropic content block, before what the user typed
(the vision guide: "Claude works best when images come before text"):

    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0…"}}

The block's base64 is never cut by any layer (a cut image is no image): the
pipeline counts an image by its pixel dimensions, read here from the file's
own header (PNG, JPEG, GIF, WebP; no imaging library), never by the length of
its base64. Facts of the API, and where they come from:

- media types, dimensions, per-request counts and the token estimate: the
  vision guide, https://docs.claude.com/en/docs/build-with-claude/vision
  ("Before you upload", "Evaluate image size", "Calculate image costs"):
  JPEG, PNG, GIF, WebP; at most 8000x8000 px, 2000x2000 px when a request
  holds more than 20 images; 100 images per request for 200K-window models
  (600 for others); an image costs about width * height / 750 tokens after it
  is scaled down (aspect kept) to a long edge of at most 1568 px and about
  1,600 tokens. (The newer page counts 28x28-px patches, ceil(w/28)*ceil(h/28),
  against a per-model native resolution: the same order, 784 px per token; a
  model with a larger native resolution costs more, and the meter's anchor on
  the real prompt size corrects the estimate after each call, tokens.py.)
- 5 MB per image, measured on the base64 string: the API's own 400 says
  "image exceeds 5 MB maximum: 8259148 bytes > 5242880 bytes" (quoted in
  github.com/anthropics/claude-code/issues/19631, /10612).
- 32 MB per Messages request: https://docs.claude.com/en/api/errors
  ("Request size limits"; 413 request_too_large).

The history carries at most KEEP_IMAGES images and KEEP_IMAGE_BYTES of them
(pipeline.py, when a request is prepared: the oldest go first, each replaced
by a placeholder naming it; the session log keeps the original), so the 100-image, many-image and 32-MB limits can never
be reached by a long conversation: a request the API refuses once it refuses
forever, compaction included ("Too much media: 0 document pages + 103 images
> 100", github.com/anthropics/claude-code/issues/3397).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import math
import re
import struct
from dataclasses import dataclass
from typing import Any

MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
MAX_IMAGE_BASE64 = 5 * 1024 * 1024  # chars of base64 per image (the API's "5 MB maximum": 5242880)
MAX_DIMENSION = 8000  # px, either side
MANY_IMAGES = 20  # more images than this in one request…
MANY_IMAGES_DIMENSION = 2000  # …and each must be at most this, either side
MAX_IMAGES_PER_REQUEST = 100  # 200K-window models (600 for others: the lower bound is kept)
MAX_REQUEST_BYTES = 32_000_000  # "32 MB" read as the smaller of 32e6 and 32 MiB

# Token estimate (vision guide): scaled to a long edge of 1568 px and ~1,600 tokens, then w*h/750.
LONG_EDGE = 1568
PIXELS_PER_TOKEN = 750
MAX_IMAGE_TOKENS = 1_600

# What the history keeps (pipeline.py): never more than the many-image threshold, so the
# 2000-px rule never applies and an image the front door took stays valid in every request;
# and at most this much base64, leaving the rest of 32 MB to the conversation's text.
KEEP_IMAGES = MANY_IMAGES
KEEP_IMAGE_BYTES = 24 * 1024 * 1024

IMAGE_MARK = "[image not carried any more: "  # the text that stands in for an image the history let go


class ImageError(ValueError):
    """An image the API would refuse, or one that cannot fit: the message says why, for the user."""


@dataclass(frozen=True)
class ImageAttachment:
    """An image a front end hands to Agent.run_turn; build it with `image_attachment` (it checks)."""

    media_type: str
    data: str  # base64, whole
    width: int
    height: int
    name: str = ""  # where it came from (a file name or uri), for placeholders and transcripts

    @property
    def tokens(self) -> int:
        return image_tokens(self.width, self.height)

    def describe(self) -> str:
        named = f"{self.name}, " if self.name else ""
        return f"{named}{self.media_type}, {self.width}x{self.height} px"


# ---------------------------------------------------------------- the header

def _be16(data: bytes, at: int) -> int:
    return int(struct.unpack_from(">H", data, at)[0])


def _le16(data: bytes, at: int) -> int:
    return int(struct.unpack_from("<H", data, at)[0])


def _le24(data: bytes, at: int) -> int:
    return data[at] | data[at + 1] << 8 | data[at + 2] << 16


def _png(data: bytes) -> tuple[int, int] | None:
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR" or len(data) < 24:
        return None
    width, height = struct.unpack_from(">II", data, 16)
    return int(width), int(height)


def _gif(data: bytes) -> tuple[int, int] | None:
    if data[:6] not in (b"GIF87a", b"GIF89a") or len(data) < 10:
        return None
    return _le16(data, 6), _le16(data, 8)


def _webp(data: bytes) -> tuple[int, int] | None:
    if data[:4] != b"RIFF" or data[8:12] != b"WEBP" or len(data) < 30:
        return None
    chunk = data[12:16]
    if chunk == b"VP8 " and data[23:26] == b"\x9d\x01\x2a":  # lossy: 14-bit sizes after the start code
        return _le16(data, 26) & 0x3FFF, _le16(data, 28) & 0x3FFF
    if chunk == b"VP8L" and data[20] == 0x2F:  # lossless: 14-bit (size - 1) fields, packed
        bits = int(struct.unpack_from("<I", data, 21)[0])
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":  # extended: 24-bit (canvas size - 1)
        return _le24(data, 24) + 1, _le24(data, 27) + 1
    return None


# Start-of-frame markers: every SOFn but DHT (C4), JPG (C8) and DAC (CC).
_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}
_STANDALONE = {0x01, *range(0xD0, 0xD9)}  # TEM, RSTn, SOI: no length follows


def _jpeg(data: bytes) -> tuple[int, int] | None:
    """The frame size from the first SOFn segment; None when the data ends (or scans) first."""
    if data[:2] != b"\xff\xd8":
        return None
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            return None  # not a marker where one must be: damaged
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in _STANDALONE:
            at += 2
            continue
        if marker in (0xD9, 0xDA):  # end of image, or a scan before any frame header
            return None
        length = _be16(data, at + 2)
        if marker in _SOF:
            if at + 9 > len(data):
                return None
            return _be16(data, at + 7), _be16(data, at + 5)  # (width, height): height comes first
        at += 2 + length
    return None


_READERS = {"image/png": _png, "image/gif": _gif, "image/webp": _webp, "image/jpeg": _jpeg}


def sniff(data: bytes) -> tuple[str, int, int] | None:
    """(media type, width, height) of PNG, JPEG, GIF or WebP bytes, from their header; None otherwise."""
    for media_type, reader in _READERS.items():
        try:
            size = reader(data)
        except (struct.error, IndexError):
            size = None
        if size is not None:
            return media_type, size[0], size[1]
    return None


_HEAD_CHARS = 64 * 1024  # base64 decoded first: every header but a JPEG's behind large metadata


def _decoded_sniff(text: str) -> tuple[str, int, int] | None:
    try:
        return sniff(base64.b64decode(text, validate=False))
    except (binascii.Error, ValueError):
        return None


def _sniff_base64(data: str) -> tuple[str, int, int] | None:
    """sniff() of base64 text, decoding only its head when that is enough (the history counts often)."""
    head = data[:_HEAD_CHARS]
    found = _decoded_sniff(head)
    if found is not None or len(data) <= len(head):
        return found
    # A JPEG whose frame header lies past the head: decoded whole once. Keyed by length, head and
    # tail (the key holds 68 KB, not the image: a cache must not keep images the history let go).
    key = (len(data), head, data[-4096:])
    if key not in _WHOLE:
        if len(_WHOLE) >= _WHOLE_SIZE:
            _WHOLE.pop(next(iter(_WHOLE)))  # the oldest entry
        _WHOLE[key] = _decoded_sniff(data)
    return _WHOLE[key]


_WHOLE: dict[tuple[int, str, str], tuple[str, int, int] | None] = {}
_WHOLE_SIZE = 64


# ---------------------------------------------------------------- tokens

def scaled_size(width: int, height: int) -> tuple[int, int]:
    """The size the model sees: scaled down (aspect kept) to the long edge and the token ceiling."""
    if width <= 0 or height <= 0:
        return 0, 0
    scale = min(1.0, LONG_EDGE / max(width, height),
                math.sqrt(MAX_IMAGE_TOKENS * PIXELS_PER_TOKEN / (width * height)))
    return max(1, int(width * scale)), max(1, int(height * scale))


def image_tokens(width: int, height: int) -> int:
    """The documented estimate: about width * height / 750 tokens, after scaling down."""
    w, h = scaled_size(width, height)
    return max(1, math.ceil(w * h / PIXELS_PER_TOKEN)) if w and h else 0


def is_image(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "image"


def _base64_data(block: dict[str, Any]) -> str | None:
    source = block.get("source")
    if not isinstance(source, dict) or source.get("type") != "base64":
        return None
    data = source.get("data")
    return data if isinstance(data, str) else None


def block_image_tokens(block: dict[str, Any]) -> int:
    """Tokens of one image block (an unreadable one: the ceiling, never its base64 length)."""
    data = _base64_data(block)
    found = _sniff_base64(data) if data is not None else None
    return image_tokens(found[1], found[2]) if found is not None else MAX_IMAGE_TOKENS


def message_image_tokens(blocks: list[dict[str, Any]]) -> int:
    """Tokens of the images among blocks, those nested in tool results included."""
    total = 0
    for block in blocks:
        if is_image(block):
            total += block_image_tokens(block)
        elif isinstance(block, dict) and block.get("type") == "tool_result" and isinstance(block.get("content"), list):
            total += sum(block_image_tokens(b) for b in block["content"] if is_image(b))
    return total


def image_data_chars(block: dict[str, Any]) -> int:
    return len(_base64_data(block) or "")


# ---------------------------------------------------------------- the front door

_SPACE = re.compile(r"\s+")


def image_attachment(data: str, media_type: str | None = None, name: str = "") -> ImageAttachment:
    """A checked image: base64 data of a PNG, JPEG, GIF or WebP within the API's limits.

    `media_type` is what the sender declared (None: taken from the header); one that
    does not match the bytes is refused, as the API refuses it. ImageError says why.
    """
    label = f"{name}: " if name else ""
    data = _SPACE.sub("", data or "")
    if media_type is not None and media_type not in MEDIA_TYPES:
        raise ImageError(f"{label}{media_type} images are not accepted (JPEG, PNG, GIF or WebP only)")
    if len(data) > MAX_IMAGE_BASE64:
        raise ImageError(f"{label}the image is {len(data):,} bytes as base64, over the API's limit of "
                         f"{MAX_IMAGE_BASE64:,} (5 MB); make it smaller and attach it again")
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise ImageError(f"{label}the image data is not valid base64") from None
    found = sniff(raw)
    if found is None:
        raise ImageError(f"{label}the data is not a PNG, JPEG, GIF or WebP image (or its header is damaged)")
    actual, width, height = found
    if media_type is not None and media_type != actual:
        raise ImageError(f"{label}the image is {actual}, not the {media_type} it was declared as")
    if not (1 <= width <= MAX_DIMENSION and 1 <= height <= MAX_DIMENSION):
        raise ImageError(f"{label}the image is {width}x{height} px; the API takes at most "
                         f"{MAX_DIMENSION}x{MAX_DIMENSION}")
    return ImageAttachment(actual, data, width, height, name)


def check_turn_images(images: list[ImageAttachment], budget_tokens: int) -> None:
    """One turn's images together: they must fit what the history keeps and the turn's share of the window."""
    if len(images) > KEEP_IMAGES:
        raise ImageError(f"{len(images)} images in one message; at most {KEEP_IMAGES} are kept in a conversation")
    chars = sum(len(i.data) for i in images)
    if chars > KEEP_IMAGE_BYTES:
        raise ImageError(f"the images of this message take {chars:,} bytes as base64; at most "
                         f"{KEEP_IMAGE_BYTES:,} fit in one request beside the conversation")
    tokens = sum(i.tokens for i in images)
    if tokens > budget_tokens:
        raise ImageError(f"the images of this message take about {tokens:,} tokens, more than the "
                         f"{budget_tokens:,} a message may take of this model's context window")


def image_block(item: ImageAttachment) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": item.media_type, "data": item.data}}


def image_of_block(block: dict[str, Any], name: str = "") -> ImageAttachment | None:
    """An image block read back (transcripts, replays, the demo model); None when it is not a readable one."""
    data = _base64_data(block) if is_image(block) else None
    found = _sniff_base64(data) if data is not None else None
    if data is None or found is None:
        return None
    return ImageAttachment(str(block["source"].get("media_type") or found[0]), data, found[1], found[2], name)


def image_ref(block: dict[str, Any]) -> str:
    """A short stable name of an image's content (for placeholders: the same image, the same name)."""
    return hashlib.sha1((_base64_data(block) or "").encode("ascii", "replace")).hexdigest()[:12]


def placeholder(block: dict[str, Any], why: str) -> dict[str, Any]:
    """The text block that stands in for an image the history let go (the session log keeps the original)."""
    item = image_of_block(block)
    what = item.describe() if item is not None else "unreadable"
    return {"type": "text", "text": f"{IMAGE_MARK}{image_ref(block)} ({what}); {why}. The user can attach it again.]"}


def is_placeholder(block: dict[str, Any]) -> bool:
    return block.get("type") == "text" and str(block.get("text", "")).startswith(IMAGE_MARK)
