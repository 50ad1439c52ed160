"""Text for approval prompts with every invisible or terminal-controlling character made visible.

A command like `ls -la\\r\\x1b[2Krm -rf ~` must not display as `ls -la`:
control characters (C0 but newline and tab, DEL, C1), Unicode format
characters (bidi overrides and isolates, zero-width characters) and line or
paragraph separators are shown as `\\xNN` / `\\uNNNN` escapes. Newlines stay
(a multi-line command or a diff is shown line by line); tabs stay.
The same rule lives in client-vscode/src/shared/visible.ts and in the
Lua module of docs/neovim.md (`M.visible`).
"""

from __future__ import annotations

import re
import unicodedata

_NAMED = {"\r": "\\r", "\b": "\\b", "\f": "\\f", "\v": "\\v"}
_HIDDEN_CATEGORIES = ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn")
# Fast path: plain printable ASCII (plus newline and tab) needs no look at each character.
_PLAIN = re.compile(r"[\t\n\x20-\x7e]*")


def _escape(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def visible(text: str) -> str:
    """`text` with control, format and separator characters escaped; newlines and tabs kept."""
    if _PLAIN.fullmatch(text):
        return text
    return "".join(
        char if char in "\n\t" or unicodedata.category(char) not in _HIDDEN_CATEGORIES else _escape(char)
        for char in text
    )


EXCERPT_CHARS = 40  # of a bad value quoted back in an error message


def excerpt(value: str, limit: int = EXCERPT_CHARS) -> str:
    """A value from outside, quoted on one line of a message: at most `limit` characters of it, made visible.

    A 5 MB session id must not come back whole in the error that refuses it.
    """
    shown = visible(value[:limit]).replace("\n", "\\n").replace("\t", "\\t")
    return f"'{shown}'" if len(value) <= limit else f"'{shown}…' ({len(value):,} characters)"
