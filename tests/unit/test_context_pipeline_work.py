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


class CountingMessages(list):
    """The history's message list, counting the messages read by index or slice, and the walks over it."""

    read = 0
    walks = 0

    def __getitem__(self, index):
        found = super().__getitem__(index)
        CountingMessages.read += len(found) if isinstance(index, slice) else 1
        return found

    def __iter__(self):
        CountingMessages.walks += 1
        return super().__iter__()


def messages_per_call(monkeypatch, results: int) -> tuple[float, float]:
    """(messages and per-message token counts read per call — token_sums.py's lookups and sums included —,
    walks over the whole message list per call)."""
    engine = grown_engine(results - COUNTED_CALLS)
    history = engine.history
    history.messages = CountingMessages(history.messages)
    sums = type(history.msg_tokens)
    reads = {"counts": 0}
    original_get, original_iter = sums.__getitem__, sums.__iter__

    def get(self, index):
        found = original_get(self, index)
        reads["counts"] += len(found) if isinstance(index, slice) else 1
        return found

    def walk(self):
        reads["counts"] += len(self)
        return original_iter(self)

    monkeypatch.setattr(sums, "__getitem__", get)
    monkeypatch.setattr(sums, "__iter__", walk)
    CountingMessages.read = CountingMessages.walks = 0
    for n in range(results - COUNTED_CALLS, results):
        steady_call(engine, n)
    assert engine.history is history  # no compaction swapped the counted list out
    return (CountingMessages.read + reads["counts"]) / COUNTED_CALLS, CountingMessages.walks / COUNTED_CALLS


def test_the_messages_read_per_call_do_not_grow_with_the_history(monkeypatch):
    # the compaction clock asks on every call where a summary would cut: the oldest turn whose tail fits a
    # share of the window; in this 4M-token window the walk back to it was the whole session (tail_start:
    # 6,400 messages read per call at 4,000 results before token_sums.py)
    small, small_walks = messages_per_call(monkeypatch, 250)
    large, large_walks = messages_per_call(monkeypatch, 4_000)
    assert small > 0
    assert large <= 2 * small, f"{small:.1f} messages per call at 250 results, {large:.1f} at 4,000"
    # one walk per call: the request's own copy of the list (it carries every message by nature)
    assert small_walks == large_walks == 1
