"""The text that stands in for rewritten content; each names where the full text is."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .tool_record import ToolRecord


def _what(record: ToolRecord) -> str:
    target = record.path_or_command
    if len(target) > 80:
        target = target[:77] + "..."
    return f"{record.name} {target}".strip()


def reread_hint(ref: str) -> str:
    return f'read_file path="{ref}"'


def cut_middle(text: str, limit: int, ref: str, label: str) -> str:
    """Head and tail of text within limit chars; the marker says what was cut and where it is."""
    probe = f"\n\n[... {label}: {len(text):,} of {len(text):,} chars cut here; full text: {reread_hint(ref)} ...]\n\n"
    keep = max(0, (limit - len(probe)) // 2)
    cut = len(text) - 2 * keep
    marker = f"\n\n[... {label}: {cut:,} of {len(text):,} chars cut here; full text: {reread_hint(ref)} ...]\n\n"
    return text[:keep] + marker + (text[-keep:] if keep else "")


def cleared(record: ToolRecord, ref: str) -> str:
    # The tool_use block above still names the tool and its input: no need to repeat them.
    return cleared_text(record.chars, ref)


def cleared_text(chars: int, ref: str) -> str:
    """What stands for a cleared result, also one the harness sent as user text (text_results.py)."""
    return f"[old result cleared ({chars:,} chars); full text: {reread_hint(ref)}]"


def snipped(record: ToolRecord, ref: str) -> str:
    return (
        f"[stale result: a newer {_what(record)} comes later; "
        f"this one ({record.chars:,} chars): {reread_hint(ref)}]"
    )


def cleared_input_value(chars: int, ref: str) -> str:
    return f"[cleared to save context: {chars:,} chars; full input: {reread_hint(ref)}]"


# Told with a prompt: files the model read earlier that changed since (agent/read_ledger.py).
CHANGED_MARK = "[changed on disk since you read them:"


def changed_files_note(paths: list[str]) -> str:
    names = ", ".join(paths)
    return (f"{CHANGED_MARK} {names}. What you read of them earlier is out of date: read them again "
            "before relying on their content.]")


def is_changed_note(block: dict[str, Any]) -> bool:
    return block.get("type") == "text" and str(block.get("text", "")).startswith(CHANGED_MARK)


# How every stand-in for rewritten content starts (or, for a cut, what it holds): never the content itself.
STAND_IN_STARTS = ("[old result cleared", "[stale result", "[cleared to save context", "[earlier reasoning cleared")
STAND_IN_CUT = "chars cut here; full text:"


def is_stand_in(text: str) -> bool:
    """A tool result's text that is (or holds) a placeholder rather than the whole content."""
    return text.lstrip().startswith(STAND_IN_STARTS) or STAND_IN_CUT in text


PLACEHOLDER_TOKENS = 25  # what a placeholder costs, for planning (a cleared input or prose: a fixed text)

# A rewrite is made only when the block shrinks, its placeholder counted as it will be written (a placeholder
# naming a long path or id is 30-50 tokens: a shorter result rewritten into it grew). The margin is small on
# purpose: inside a batch the cache is lost from the first change anyway, so a further small saving is free,
# and on the shared traces a margin of 5 tokens cost up to 10% more at 200K (django-11797), 50 tokens 13%.
MIN_REWRITE_SAVING = 1


def worth_rewriting(saves: int) -> bool:
    """Whether a rewrite that frees `saves` tokens (placeholder already counted) is worth a cache break."""
    return saves >= MIN_REWRITE_SAVING


def snip_saving(record: ToolRecord, tokens_of: Callable[[int], int], ref: str) -> int:
    """Tokens a snip frees: the result's size less its placeholder's (which names the tool and path)."""
    return tokens_of(record.chars) - tokens_of(len(snipped(record, ref)))


def clear_saving(record: ToolRecord, tokens_of: Callable[[int], int], ref: str) -> int:
    """Tokens clearing a result frees, its placeholder counted."""
    return tokens_of(record.chars) - tokens_of(len(cleared(record, ref)))


SUPERSEDED_MARK = " superseded by a newer one ("


def superseded(tag: str, chars: int, ref: str) -> str:
    """What stands for a state block a newer one restates (superseded.py)."""
    return f"[<{tag}>{SUPERSEDED_MARK}{chars:,} chars); this one: {reread_hint(ref)}]"


def is_superseded(text: str) -> bool:
    return text.startswith("[<") and SUPERSEDED_MARK in text.split("\n", 1)[0]


PROSE_MARK = "[earlier reasoning cleared to save context"
_PROSE = re.compile(re.escape(PROSE_MARK) + r' \(([\d,]+) chars\); full text: read_file path="([^"]+)"\]')


def cleared_prose(chars: int, ref: str) -> str:
    return f"{PROSE_MARK} ({chars:,} chars); full text: {reread_hint(ref)}]"


def parse_cleared_prose(text: str) -> tuple[str, int] | None:
    """(ref, original chars) of a cleared-prose placeholder, None for any other text."""
    found = _PROSE.fullmatch(text)
    return (found.group(2), int(found.group(1).replace(",", ""))) if found else None


_SUPERSEDED = re.compile(r"\[<([A-Za-z][\w-]*)>" + re.escape(SUPERSEDED_MARK)
                         + r'([\d,]+) chars\); this one: read_file path="([^"]+)"\]')
_CLEARED = re.compile(r'\[old result cleared \(([\d,]+) chars\); full text: read_file path="([^"]+)"\]')


def parse_user_placeholder(text: str) -> tuple[str, str, str, int] | None:
    """(its layer as the report names it, what it stood for, ref, original chars) of a superseded state
    block's or a cleared text result's placeholder in a user message (superseded.py, text_results.py); None
    for any other text."""
    found = _SUPERSEDED.fullmatch(text)
    if found:
        return "superseded", f"<{found.group(1)}>", found.group(3), int(found.group(2).replace(",", ""))
    found = _CLEARED.fullmatch(text)
    if found:
        return "clearedTextResult", "(result as user text)", found.group(2), int(found.group(1).replace(",", ""))
    return None
