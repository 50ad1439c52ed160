"""Property: no layer clears what the model has not seen.

A result that arrived after the last answered request has never been shown
to the model. Whatever the window, the idle gaps or the number and size of
the results of one round, the next request carries every such result either
as it arrived, or — only when the window leaves no other way — cut to fit:
its head and tail, and a marker naming the cut and the context:// ref where
the whole text reads back. Never a placeholder (cleared, snipped), never a
budget cut, never missing.

Thousands of generated conversations (AGENTLS_PROPERTY_EXAMPLES, default
3000) over small windows, many large results per round, idle gaps between a
round and its request (a tool that waited for approval), compactions.
"""

from __future__ import annotations

import os
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import test_context_properties as base
from agentls.context.blocks import blocks_of, result_text
from agentls.context.fit import LABEL as FIT_LABEL
from agentls.context.store import result_ref
from agentls.context.structure import request_problems

EXAMPLES = int(os.environ.get("AGENTLS_PROPERTY_EXAMPLES", "3000"))
SIZES = [0, 300, 4_000, 9_000, 17_000, 40_000]
CUT = re.compile(r"\[\.\.\. (truncated|cut to fit the window): [\d,]+ of ([\d,]+) chars cut here; "
                 r'full text: read_file path="(context://[^"]+)" \.\.\.\]')

tool = st.tuples(st.sampled_from(base.TOOLS), st.integers(0, 2), st.sampled_from(SIZES), st.sampled_from([0, 30]))
op = st.one_of(
    st.tuples(st.just("user"), st.integers(0, 400)),
    st.tuples(st.just("tools"), st.tuples(st.lists(tool, min_size=1, max_size=6), st.sampled_from([0, 150, 2_000]))),
    st.tuples(st.just("answer"), st.integers(0, 2_000)),
    st.tuples(st.just("idle"), st.sampled_from([30, 400, 900])),
    st.tuples(st.just("compact"), st.booleans()),
)


class SeenDriver(base.Driver):
    """The base driver, checking before every request that each result not yet seen is carried whole or cut."""

    def __init__(self, window: int) -> None:
        super().__init__(window)
        self.seen: set[str] = set()
        self.checked = 0  # unseen results checked in a request
        self.cut_to_fit = 0  # of which the window forced a cut

    def unseen(self) -> list[str]:
        history = self.engine.history
        return [i for i in history.results if i not in self.seen and history.records[i].result_msg is not None]

    def check_unseen(self, messages: list) -> None:
        carried = {b["tool_use_id"]: result_text(b) for m in messages if m["role"] == "user"
                   for b in blocks_of(m) if b.get("type") == "tool_result"}
        for tool_use_id in self.unseen():
            original = self.originals[tool_use_id]
            assert tool_use_id in carried, f"{tool_use_id} was dropped before the model saw it"
            text = carried[tool_use_id]
            self.checked += 1
            if text == original:
                continue
            found = CUT.search(text)
            assert found is not None, f"{tool_use_id} was replaced before the model saw it: {text[:120]!r}"
            assert found.group(3) == result_ref(tool_use_id)
            assert int(found.group(2).replace(",", "")) <= len(original)
            assert self.engine.store.get(result_ref(tool_use_id)) == original
            head = text[:found.start()].rstrip("\n")
            assert original.startswith(head), "a cut keeps the head of the result"
            self.cut_to_fit += found.group(1) == FIT_LABEL

    def call_model(self, summary_ok: bool) -> None:
        prepared = self.engine.prepare(self.clock)
        if prepared.compaction_due:
            self.compact(manual=False, ok=summary_ok)
            prepared = self.engine.prepare(self.clock, allow_compaction=False)
        assert request_problems(prepared.messages) == []
        self.check_unseen(prepared.messages)
        self.requests += 1
        self.record(prepared.estimate)
        self.seen.update(self.engine.history.results)  # answered: the model saw everything it carried
        self.clock += 1

    def run(self, ops) -> None:
        super().run(ops)
        assert not self.unseen(), "every result was carried by a request before the end"


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(ops=st.lists(op, min_size=1, max_size=30), window=st.sampled_from([4_000, 8_000, 16_000, 30_000]))
def test_no_layer_clears_a_result_the_model_has_not_seen(ops, window):
    SeenDriver(window).run(ops)


def test_three_reads_in_one_round_at_30k_all_reach_the_model():
    """The reported case: three large files read in one round with a 30K window; the reply must not
    quote "[old result cleared…" — every result reaches the model, the first ones too."""
    driver = SeenDriver(30_000)
    driver.run([("user", 20), ("tools", ([("read_file", 0, 17_000, 0), ("read_file", 1, 17_000, 0),
                                          ("read_file", 2, 17_000, 0)], 0)), ("answer", 100)])
    assert driver.checked == 3


def test_the_property_is_exercised():
    """The generated conversations do reach the cases that matter: unseen results checked, some cut to fit."""
    driver = SeenDriver(4_000)
    driver.run([("user", 10), ("tools", ([("read_file", 0, 40_000, 0), ("run_shell", 1, 17_000, 0)], 0)),
                ("idle", 900), ("answer", 10), ("user", 10),
                ("tools", ([("grep_search", 2, 9_000, 0)] * 4, 0)), ("answer", 10)])
    assert driver.checked >= 6 and driver.cut_to_fit >= 1
