"""The pipeline's work per model call does not grow with the history (counted, not timed).

`agentls bench pipeline` times the same synthetic session; a timing is noisy on
a busy machine, a count is not. What is counted is every block the context
modules read: the blocks `blocks_of` hands out and those `message_chars`
walks, the two ways a message's content is read. A layer that scans the whole
history on every call (as keep_images once did, for the image positions)
visits 16 times as many blocks at 4,000 results as at 250.
"""

import sys

import pytest

from agentls.context import blocks as blocks_module
from agentls.evaluation.pipeline_bench import grown_engine, steady_call

COUNTED_CALLS = 100  # over several batches of rewrites (one every ~17 calls)


class BlockCounter:
    def __init__(self) -> None:
        self.visited = 0

    def blocks_of(self, message):
        found = blocks_module.blocks_of(message)
        self.visited += len(found)
        return found

    def message_chars(self, message):
        content = message.get("content")
        self.visited += 1 if isinstance(content, str) else len(content or [])
        return blocks_module.message_chars(message)


@pytest.fixture
def counter(monkeypatch) -> BlockCounter:
    """Counts the blocks read by every context module (each holds its own name for these helpers)."""
    counting = BlockCounter()
    originals = {"blocks_of": blocks_module.blocks_of, "message_chars": blocks_module.message_chars}
    for name, module in list(sys.modules.items()):
        if not name.startswith("agentls.context.") or module is blocks_module:
            continue
        for helper, original in originals.items():
            if getattr(module, helper, None) is original:
                monkeypatch.setattr(module, helper, getattr(counting, helper))
    return counting


def blocks_per_call(counter: BlockCounter, results: int) -> float:
    engine = grown_engine(results - COUNTED_CALLS)
    counter.visited = 0
    for n in range(results - COUNTED_CALLS, results):
        steady_call(engine, n)
    return counter.visited / COUNTED_CALLS


def test_the_blocks_read_per_call_do_not_grow_with_the_history(counter):
    small = blocks_per_call(counter, 250)
    large = blocks_per_call(counter, 4_000)
    assert small > 0  # the counter sees the pipeline's reads
    assert large <= 2 * small, f"{small:.1f} blocks per call at 250 results, {large:.1f} at 4,000"
