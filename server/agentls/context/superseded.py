"""Superseded context blocks: a harness's per-turn state block, once a newer one restates it.

Some harnesses append the same kind of state to every user message, results included: Cline and Roo an
``<environment_details>`` block (open tabs, the time, running terminals), Codex an ``<environment_context>``.
Each restates the previous one with a few lines changed, and none is the user's own words. Carried whole,
they were half of what a 32K window held on such sessions (and a fold cannot take a turn that carries
text). Once a newer block of the same tag repeats most of an older one's lines (state_blocks.py says
which), the older one is **superseded**: it goes to the store and a one-line placeholder names its ref
(lossless: read_file on the ref brings it back). The newest block of each tag always stays as it is.

Like every rewrite it is a candidate of the price rule (policy.py), priced and timed with its batch.
"""

from __future__ import annotations

from collections.abc import Iterator

from .blocks import blocks_of
from .config import ContextConfig
from .history import History
from .placeholders import PLACEHOLDER_TOKENS, worth_rewriting
from .rewrite import SUPERSEDE, Rewrite


def plan_superseded(history: History, config: ContextConfig) -> Iterator[Rewrite]:
    """Each state block a newer one restates, in a message the model has answered."""
    if not config.supersede_states:
        return
    for message, block, _ in history.states.candidates(history.last_turn()):
        text = str(blocks_of(history.messages[message])[block].get("text", ""))
        saves = config.tokens(len(text)) - PLACEHOLDER_TOKENS
        if worth_rewriting(saves):
            yield Rewrite("", SUPERSEDE, saves, message=message, block=block)
