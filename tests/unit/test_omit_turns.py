"""The very last resort (omit_turns.py): when no summary can be had and only small blocks are left, the
oldest turns after the task leave whole, stored; the request fits, stays valid, and reads them back."""

import re

from agentls.context import ContextConfig, ContextEngine, MemoryStore
from agentls.context.blocks import blocks_of
from agentls.context.compact import is_generated
from agentls.context.omit_turns import OMITTED_TURNS_MARK
from agentls.context.structure import request_problems
from agentls.context.tokens import Usage
from synth import assistant_text, user


def test_the_oldest_small_turns_leave_whole_when_nothing_else_fits_and_read_back():
    engine = ContextEngine(config=ContextConfig(window=6_000, auto_compact=False), store=MemoryStore())
    engine.append(user("the task: keep the parser fast"))
    engine.append(assistant_text("On it."))
    engine.append(user("Begin with the lexer."))
    said = []
    for i in range(200):  # short prompts and answers: nothing for a layer to clear or cut, no summary allowed
        engine.append(assistant_text(f"Answer {i}: noted, the parser keeps step_{i:03d} as it is."))
        engine.append(user(f"Question {i}: what about output_of_step_{i:03d} in the lexer?"))
        said.append(f"output_of_step_{i:03d}")
        prepared = engine.prepare(float(i))
        # the API counts more than the estimate (a tokenizer of its own): the meter trusts it
        engine.record_usage(Usage(input_tokens=engine.raw_estimate + 1_000), float(i))
        assert prepared.estimate <= engine.config.effective_window, i
        assert request_problems(prepared.messages) == []
    first = blocks_of(engine.history.messages[0])
    assert first[0]["text"] == "the task: keep the parser fast"  # the task stays
    notes = [b["text"] for b in first if b["text"].startswith(OMITTED_TURNS_MARK)]
    assert notes and all(is_generated(n) for n in notes)  # never quoted as the user's words
    kept = "\n".join(str(m) for m in engine.history.messages)
    stored = ""
    pending = [re.search(r'read_file path="([^"]+)"', n).group(1) for n in notes]
    while pending:  # a later omission stores the note of an earlier one: follow the refs
        text = engine.store.get(pending.pop())
        stored += text
        pending += re.findall(r'read_file path="([^"]+)"', text)
    assert all(word in kept or word in stored for word in said)  # every turn is in the request or the store
    assert "output_of_step_199" in kept and "output_of_step_000" in stored
