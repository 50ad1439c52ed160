"""Cutting one tool result to what agentls keeps: RESULT_CAP_BYTES (UTF-8), a documented cap (README, "Limits").

The caps themselves, and why there are three, are in context/caps.py. Every
tool result, MCP items included, is cut here before agentls turns it into text
or stores it, and the cut says so; the user's own material (an attachment, a
pasted text read back through its ref) is kept up to ATTACHMENT_CAP_BYTES.
"""

from __future__ import annotations

from ..context.caps import ATTACHMENT_CAP_BYTES, RESULT_CAP_BYTES
from ..context.oversize import USER_REF_PREFIX


def cut_note(total_chars: int, cap: int = RESULT_CAP_BYTES) -> str:
    what = "one attachment" if cap == ATTACHMENT_CAP_BYTES else "one tool result"
    return (f"\n[… cut by agentls: this result has {total_chars:,} characters and {what} keeps at most "
            f"{cap:,} bytes. Ask for less (a range, a filter, a page) to see the rest.]")


def stored_cap(ref: str) -> int:
    """What the store keeps of the text behind `ref`."""
    return ATTACHMENT_CAP_BYTES if ref.startswith(USER_REF_PREFIX) else RESULT_CAP_BYTES


def utf8_prefix(text: str, budget: int) -> str:
    """The longest prefix of `text` whose UTF-8 encoding fits in `budget` bytes (never a split character)."""
    if budget <= 0:
        return ""
    if len(text) * 4 <= budget:
        return text  # every character is at most 4 bytes: no need to encode a short text
    head = text[:budget].encode("utf-8", "surrogatepass")  # `budget` characters are at least `budget` bytes
    return head[:budget].decode("utf-8", "ignore")


def fits(text: str, cap: int = RESULT_CAP_BYTES) -> bool:
    return len(text) * 4 <= cap or (len(text) <= cap and len(text.encode("utf-8", "surrogatepass")) <= cap)


def capped(text: str, cap: int = RESULT_CAP_BYTES) -> str:
    """`text` itself when it fits in `cap` bytes; else its head and a note, `cap` bytes in all."""
    if fits(text, cap):
        return text
    note = cut_note(len(text), cap)
    return utf8_prefix(text, cap - len(note.encode("utf-8"))) + note


def base64_bytes(data: str) -> int:
    """Decoded size of base64 text, computed without decoding it (a 150 MB image must not be copied)."""
    length = len(data.strip())
    return max(0, length * 3 // 4 - data.rstrip()[-2:].count("="))
