"""Folding spent turns between compactions (fold_turns.py), through the real engine and the real replay."""

import re

from hypothesis import HealthCheck, given, settings, strategies as st

from agentls.agent.sent import FOLDED, SentLog, tool_result_view
from agentls.context import ContextConfig, ContextEngine, MemoryStore
from agentls.context import rewrite as rw
from agentls.context.blocks import blocks_of
from agentls.context.engine_state import engine_state, message_row, restore
from agentls.agent.prompt import SYSTEM_PROMPT
from agentls.context.fold import FOLD_MARK, WORDS_MARK
from agentls.context.store import input_ref, result_ref, words_ref
from agentls.context.structure import request_problems
from agentls.context.tokens import Usage
from synth import results, tool_call, user

OFF = 10.0  # a threshold that is never reached


def engine_with(**settings) -> ContextEngine:
    base = dict(window=200_000, output_reserve=0, clear_at=OFF, snip_at=OFF, budget_soft_at=OFF,
                budget_hard_at=OFF, compact_at=OFF, min_batch_tokens=0, batch_payoff=0.0,
                clear_keep_named_turns=0)  # kept by arrival alone here (naming: test_naming.py)
    base.update(settings)
    engine = ContextEngine(config=ContextConfig(**base), store=MemoryStore())
    engine.append(user("start"))
    return engine


class Session:
    """A tool loop through the engine: every turn prepared and answered, as the agent runs it."""

    def __init__(self, engine: ContextEngine) -> None:
        self.engine, self.clock, self.sent = engine, 0.0, []

    def turn(self, name: str, tool_input: dict, body: str, text: str | None = None) -> str:
        """One tool call and its result, with a few lines of the assistant's (its own text by default)."""
        self.call()
        message, tool_use_id = tool_call(name, tool_input, said(len(self.sent)) if text is None else text)
        self.engine.append(message)
        self.engine.append(results([(tool_use_id, body)]))
        return tool_use_id

    def call(self):
        prepared = self.engine.prepare(self.clock)
        assert request_problems(prepared.messages) == []
        self.engine.record_usage(Usage(cache_read_input_tokens=prepared.estimate), self.clock)
        self.clock += 1
        self.sent.append(prepared)
        return prepared


def said(n: int) -> str:
    return f"Reading module {n}, since the failing test imports it and " + "its helpers " * 20


def index_blocks(engine: ContextEngine) -> list[str]:
    return [b["text"] for m in engine.history.messages for b in blocks_of(m)
            if b.get("type") == "text" and b["text"].startswith(FOLD_MARK)]


def test_a_batch_folds_the_turns_it_clears_into_index_lines_and_keeps_every_original():
    session = Session(engine_with(clear_at=0.0, clear_keep_recent=2, written_keep_recent=2))
    ids = [session.turn("read_file", {"path": f"src/module_{i}.py"}, f"def f{i}(): pass\n" * 300,
                        text=said(i)) for i in range(6)]
    prepared = session.call()
    engine = session.engine
    assert prepared.batch is not None and any(r.layer == rw.FOLD for r in prepared.batch.rewrites)
    folded = [i for i in ids if i not in engine.history.records]
    assert folded == ids[:4]  # the two recent results stay, with their calls
    [index] = index_blocks(engine)
    lines = index.split("\n")[1:]
    assert [re.search(r"context://(\S+?)[;\s]", line + " ").group(1) for line in lines] == folded  # in order
    assert lines[0] == f"- read_file src/module_0.py (4,500 chars): {result_ref(ids[0])} +words"
    for n, tool_use_id in enumerate(folded):
        assert engine.store.get(result_ref(tool_use_id)) == f"def f{n}(): pass\n" * 300
        assert f"src/module_{n}.py" in engine.store.get(input_ref(tool_use_id))
        assert engine.store.get(words_ref(tool_use_id)) == said(n)  # whole, though cleared before the fold
    assert f"ending in {WORDS_MARK}: its words are at that ref\n+ /words" in SYSTEM_PROMPT  # said once, not per index
    assert request_problems(engine.history.messages) == []
    assert engine.stats[rw.FOLD].count == 4 and engine.stats[rw.FOLD].tokens_saved > 0
    assert engine.folded_lines[ids[0]] == lines[0]


def test_a_turn_that_keeps_content_is_not_folded():
    session = Session(engine_with(clear_at=0.0, clear_keep_recent=1, written_keep_recent=1))
    edit = session.turn("edit_file", {"path": "a.py", "old": "x", "new": "y"}, "edited a.py")  # protected
    read = session.turn("read_file", {"path": "b.py"}, "b\n" * 2_000)
    session.turn("read_file", {"path": "c.py"}, "c\n" * 2_000)
    session.call()
    records = session.engine.history.records
    assert edit in records and records[edit].state == ""  # its result stays: no fold
    assert read not in records  # cleared, so folded


def test_the_newest_turn_is_never_folded_even_when_nothing_recent_is_kept():
    session = Session(engine_with(clear_at=0.0, clear_keep_recent=0, written_keep_recent=0))
    ids = [session.turn("read_file", {"path": f"{i}.py"}, "z\n" * 3_000) for i in range(3)]
    session.call()  # the newest results were not seen yet: no layer may touch them, no fold either
    records = session.engine.history.records
    assert ids[-1] in records and records[ids[-1]].state == ""
    assert ids[0] not in records


def test_index_lines_a_folded_message_carried_move_on_in_order():
    session = Session(engine_with(clear_at=0.0, clear_keep_recent=2, written_keep_recent=2))
    ids = [session.turn("read_file", {"path": f"p{i}.py"}, f"{i}\n" * 2_000) for i in range(4)]
    session.call()  # folds p0, p1: their index goes after the next reply (into p2's results)
    ids += [session.turn("read_file", {"path": f"q{i}.py"}, f"{i}\n" * 2_000) for i in range(4)]
    session.call()  # folds p2 (carrying p0, p1) and more
    engine = session.engine
    order = [re.search(r"context://(\S+?)[;\s]", line + " ").group(1)
             for text in index_blocks(engine) for line in text.split("\n")[1:]]
    assert order == [i for i in ids if i not in engine.history.records]
    assert order[:3] == ids[:3]


def test_a_fold_changes_nothing_before_the_frontier_the_last_request_was_cached_at():
    session = Session(engine_with(clear_at=0.0, clear_keep_recent=3, written_keep_recent=3, batch_payoff=1.0))
    for i in range(40):
        session.turn("run_shell", {"command": f"pytest -k case{i}"}, f"case {i} ok\n" * 150)
    session.call()
    for before, after in zip(session.sent, session.sent[1:]):
        folds = after.batch is not None and any(r.layer == rw.FOLD for r in after.batch.rewrites)
        if folds and before.frontier is not None:
            assert after.messages[:before.frontier + 1] == before.messages[:before.frontier + 1]
    assert any(p.batch is not None and p.batch.reason == "payback" and
               any(r.layer == rw.FOLD for r in p.batch.rewrites) for p in session.sent)


def test_the_view_of_a_folded_call_is_its_index_line_and_survives_a_restart():
    session = Session(engine_with(clear_at=0.0, clear_keep_recent=1, written_keep_recent=1))
    first = session.turn("grep_search", {"pattern": "def main"}, "main.py:1: def main\n" * 200)
    session.turn("read_file", {"path": "main.py"}, "x\n" * 2_000)
    log = SentLog()
    prepared = session.call()
    log.prepared(prepared.batch)
    log.sent(prepared.messages, session.engine, 5.0)
    view = tool_result_view(log, session.engine, first, with_original=True)
    assert (view.marker, view.layer, view.rewritten_at) == (FOLDED, rw.FOLD, 5.0)
    assert view.text == session.engine.folded_lines[first] and view.original == "main.py:1: def main\n" * 200
    engine = session.engine
    rows = [message_row(engine, i) for i in range(len(engine.history.messages))]
    again = ContextEngine(config=engine.config, store=engine.store)
    restore(again, rows, engine_state(engine))
    assert again.folded_lines == engine.folded_lines
    assert tool_result_view(SentLog(), again, first, with_original=False).marker == FOLDED


small_tool = st.tuples(st.sampled_from(["run_shell", "read_file", "grep_search"]), st.integers(0, 6),
                       st.sampled_from([30, 400, 3_000, 12_000]), st.sampled_from(["", "ok.", "t" * 300]))


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(turns=st.lists(small_tool, min_size=3, max_size=40), keep=st.integers(0, 4))
def test_every_fold_leaves_a_valid_request_whose_index_refs_read_back(turns, keep):
    session = Session(engine_with(clear_at=0.0, clear_keep_recent=keep, written_keep_recent=keep, batch_payoff=1.0))
    bodies = {}
    for name, target, size, text in turns:
        tool_use_id = session.turn(name, {"path": f"t{target}"}, f"{target}:" + "r" * size, text=text)
        bodies[tool_use_id] = f"{target}:" + "r" * size
    session.call()
    engine = session.engine
    assert request_problems(engine.history.messages) == []
    for text in index_blocks(engine):
        for ref in re.findall(r"context://[^\s;]+", text):
            assert engine.store.get(ref) is not None, ref
    for tool_use_id, body in bodies.items():
        if tool_use_id not in engine.history.records:
            assert engine.store.get(result_ref(tool_use_id)) == body
