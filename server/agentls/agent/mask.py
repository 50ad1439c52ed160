"""Masking secret values (API keys, MCP env and header values) in text that leaves the process.

A value of four characters or more is masked wherever it occurs. A shorter
one (a PIN, a two-letter token) is masked too, but only as a whole word:
masking every "7" of a message would make it unreadable, and a short secret
in a message stands as a value of its own (`"X-Pin": "42"`, `token=ab1`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MASK = "***"
SHORT = 4


def mask_values(text: str, values: Iterable[str], mask: str = MASK) -> str:
    unique = {value for value in values if isinstance(value, str) and value}
    for value in sorted((v for v in unique if len(v) >= SHORT), key=len, reverse=True):
        text = text.replace(value, mask)
    short = sorted((v for v in unique if len(v) < SHORT), key=len, reverse=True)
    if short:
        words = "|".join(re.escape(value) for value in short)
        text = re.sub(rf"(?<![A-Za-z0-9])(?:{words})(?![A-Za-z0-9])", mask, text)
    return text
