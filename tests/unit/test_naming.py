"""Clearing keeps what the model named lately (naming.py): the index, the policy through the real engine, a restart."""

from hypothesis import HealthCheck, given, settings, strategies as st

from agentls.context import ContextConfig, ContextEngine, MemoryStore
from agentls.context.blocks import result_text
from agentls.context.engine_state import engine_state, message_row, restore
from agentls.context.naming import NameIndex
from agentls.context.tokens import Usage
from synth import results, tool_call, user

OFF = 10.0


def engine_with(**settings) -> ContextEngine:
    base = dict(window=200_000, output_reserve=0, clear_at=0.0, snip_at=OFF, budget_soft_at=OFF,
                budget_hard_at=OFF, compact_at=OFF, min_batch_tokens=0, batch_payoff=0.0, fold_settled=False,
                clear_keep_recent=1, clear_keep_named_turns=2, written_keep_recent=1)
    base.update(settings)
    engine = ContextEngine(config=ContextConfig(**base), store=MemoryStore())
    engine.append(user("start"))
    return engine


def body(name: str) -> str:
    """A result that shows one specific name, in a text long enough to be worth clearing."""
    return f"def {name}(self):\n" + "    return compute_the_value(self.values)\n" * 80


def step(engine: ContextEngine, clock: list[float], text: str, path: str) -> str:
    """One answered request, then a reply that writes `text` and reads `path`."""
    prepared = engine.prepare(clock[0])
    engine.record_usage(Usage(cache_read_input_tokens=prepared.estimate), clock[0])
    clock[0] += 1
    message, tool_use_id = tool_call("read_file", {"path": path}, text)
    engine.append(message)
    engine.append(results([(tool_use_id, body(path.replace("/", "_").replace(".", "_")))]))
    return tool_use_id


def verbatim(engine: ContextEngine, tool_use_id: str) -> bool:
    block = engine.history.result_block(tool_use_id)
    return block is not None and result_text(block).startswith("def ")


def test_a_reply_names_the_results_that_show_a_rare_word_and_only_those():
    index = NameIndex()
    index.add_result("a", "class ParserState: parse_header_block")
    index.add_result("b", "parse_header_block appears here too")
    index.add_result("c", "unrelated_function_name")
    index.turn += 3  # three replies that named nothing
    assert not index.named_within("a", 2)
    index.add_reply({"role": "assistant", "content": [
        {"type": "text", "text": "I will change parse_header_block"}]})
    assert index.named_within("a", 1) and index.named_within("b", 1)
    assert not index.named_within("c", 2)
    index.add_result("d", "parse_header_block once more")  # now three verbatim results show the word
    index.turn += 3
    index.add_reply({"role": "assistant", "content": [
        {"type": "tool_use", "id": "x", "name": "edit_file", "input": {"old": "parse_header_block"}}]})
    assert not index.named_within("a", 1), "a word most results show names none of them"
    index.forget("d")
    index.forget("b")
    index.add_reply({"role": "assistant", "content": [{"type": "thinking", "thinking": "parse_header_block"}]})
    assert index.named_within("a", 1), "once the others left the request the word is rare again"
    assert "d" not in index.words and all("d" not in ids for ids in index.holders.values())


def test_clearing_keeps_an_old_result_the_model_named_and_clears_the_unnamed_one():
    engine, clock = engine_with(), [0.0]
    named = step(engine, clock, "Reading the first file.", "src/first_module.py")
    unnamed = step(engine, clock, "Reading the second file.", "src/second_module.py")
    for n in range(4):  # replies that name nothing of either result
        step(engine, clock, f"Step {n}.", f"src/other_{n}.py")
    engine.prepare(clock[0])
    assert not verbatim(engine, named) and not verbatim(engine, unnamed), "both old, both unnamed: both cleared"

    engine, clock = engine_with(), [0.0]
    named = step(engine, clock, "Reading the first file.", "src/first_module.py")
    unnamed = step(engine, clock, "Reading the second file.", "src/second_module.py")
    for n in range(4):  # each reply writes a name only the first result shows
        step(engine, clock, f"Now src_first_module_py is the one to change ({n}).", f"src/other_{n}.py")
    engine.prepare(clock[0])
    assert verbatim(engine, named), "named in the last replies: kept whatever its age"
    assert not verbatim(engine, unnamed)
    for n in range(3):  # the model moves on: the name is no longer written
        step(engine, clock, f"Step {n}.", f"src/later_{n}.py")
    engine.prepare(clock[0])
    assert not verbatim(engine, named), "not named for longer than clear_keep_named_turns: cleared"


def test_the_named_results_kept_fit_the_recent_share_of_the_window():
    # a window whose recent share holds about one of these results: the older named ones are cleared anyway
    engine, clock = engine_with(window=2_000, clear_recent_fraction=0.5), [0.0]
    first = step(engine, clock, "Reading.", "src/first_module.py")
    second = step(engine, clock, "Reading.", "src/second_module.py")
    for n in range(3):
        step(engine, clock, f"Both src_first_module_py and src_second_module_py matter ({n}).", f"src/x_{n}.py")
    engine.prepare(clock[0])
    assert not verbatim(engine, first) and not verbatim(engine, second)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 5), st.booleans()), min_size=3, max_size=14))
def test_a_restarted_engine_keeps_and_clears_what_the_running_one_does(plan):
    """Whatever was named when: the engine rebuilt from its saved state names and clears the same results."""
    engine, clock = engine_with(), [0.0]
    ids: list[str] = []
    for target, reread in plan:
        text = f"Working on src_mod_{target}_py." if ids else "Start."
        ids.append(step(engine, clock, text, f"src/mod_{target}.py" if reread else f"src/new_{len(ids)}.py"))
    rows = [message_row(engine, i) for i in range(len(engine.history.messages))]
    again = ContextEngine(config=engine.config, store=MemoryStore())
    restore(again, rows, engine_state(engine))
    assert again.history.names.named_turn == engine.history.names.named_turn
    assert again.history.names.turn == engine.history.names.turn
    assert again.history.names.holders == engine.history.names.holders
    first, second = engine.prepare(clock[0]), again.prepare(clock[0])
    assert first.messages == second.messages
