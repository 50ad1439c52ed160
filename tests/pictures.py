"""Image files for the tests, made here byte by byte (no imaging library is a dependency).

`png` is a real, decodable PNG (zlib + CRCs, stdlib only); `padding` adds an
ancillary chunk so a file can be large while its pixel size stays small (what
the pipeline must count by its pixels, not by its bytes). The JPEG, GIF and WebP
makers write the header a decoder reads the size from, and a minimal body.
"""

from __future__ import annotations

import base64
import os
import struct
import zlib


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(width: int, height: int, padding: int = 0, seed: int = 0) -> bytes:
    """A grey-level PNG of width x height px; `padding` bytes of random data in a private chunk."""
    rows = b"".join(b"\x00" + bytes((x + y + seed) % 256 for x in range(width)) for y in range(height))
    chunks = [_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))]
    if padding:
        chunks.append(_chunk(b"prVt", os.urandom(padding)))  # lower-case first letter: ancillary, skipped
    chunks += [_chunk(b"IDAT", zlib.compress(rows)), _chunk(b"IEND", b"")]
    return b"\x89PNG\r\n\x1a\n" + b"".join(chunks)


def png_header(width: int, height: int) -> bytes:
    """Only the signature and IHDR of a PNG (huge sizes without huge files)."""
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))


def jpeg(width: int, height: int, metadata: int = 0) -> bytes:
    """SOI, a JFIF APP0, optional APP1 segments of `metadata` bytes, the SOF0 frame header, EOI."""
    out = b"\xff\xd8" + b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    while metadata > 0:
        size = min(metadata, 65_000)
        out += b"\xff\xe1" + struct.pack(">H", size + 2) + os.urandom(size)
        metadata -= size
    out += b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return out + b"\xff\xd9"


def gif(width: int, height: int) -> bytes:
    return b"GIF89a" + struct.pack("<HH", width, height) + b"\x00\x00\x00" + b"\x3b"


def webp_lossy(width: int, height: int) -> bytes:
    frame = b"\x00\x00\x00" + b"\x9d\x01\x2a" + struct.pack("<HH", width, height) + b"\x00" * 10
    return b"RIFF" + struct.pack("<I", 4 + 8 + len(frame)) + b"WEBP" + b"VP8 " + struct.pack("<I", len(frame)) + frame


def webp_lossless(width: int, height: int) -> bytes:
    bits = (width - 1) | (height - 1) << 14
    frame = b"\x2f" + struct.pack("<I", bits) + b"\x00" * 8
    return b"RIFF" + struct.pack("<I", 4 + 8 + len(frame)) + b"WEBP" + b"VP8L" + struct.pack("<I", len(frame)) + frame


def webp_extended(width: int, height: int) -> bytes:
    def le24(n: int) -> bytes:
        return bytes((n & 0xFF, n >> 8 & 0xFF, n >> 16 & 0xFF))

    frame = b"\x00\x00\x00\x00" + le24(width - 1) + le24(height - 1)
    return b"RIFF" + struct.pack("<I", 4 + 8 + len(frame)) + b"WEBP" + b"VP8X" + struct.pack("<I", len(frame)) + frame


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def image_block(data: bytes, media_type: str = "image/png") -> dict:
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": b64(data)}}
