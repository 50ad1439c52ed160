"""Results a harness sends as user text (text_results.py): through the real engine, history, compaction,
restore and replay."""

from hypothesis import given, settings, strategies as st

from agentls.context import ContextConfig, ContextEngine, MemoryStore
from agentls.context import rewrite as rw
from agentls.context.blocks import blocks_of
from agentls.context.clearing import plan_clear_text_results
from agentls.context.compact import user_texts_before
from agentls.context.engine_state import engine_state, message_row, restore
from agentls.context.structure import request_problems
from agentls.context.text_results import ends_in_call
from agentls.context.tokens import Usage
from agentls.evaluation.replay import replay_trace
from agentls.evaluation.shaped_traces import results_as_user_text
from synth import assistant_text, results, tool_call, user

OFF = 10.0
ENVIRONMENT = "<environment_details>\n" + "\n".join(f"src/File{j}.cs" for j in range(30)) + "\n</environment_details>"


def engine_with(**settings) -> ContextEngine:
    base = dict(window=200_000, output_reserve=0, clear_at=0.0, snip_at=OFF, budget_soft_at=OFF,
                budget_hard_at=OFF, compact_at=OFF, min_batch_tokens=0, batch_payoff=0.0, clear_keep_recent=2)
    base.update(settings)
    engine = ContextEngine(config=ContextConfig(**base), store=MemoryStore())
    engine.append(user("<task>\nPort the settings page.\n" + "The page must keep its layout. " * 40 + "</task>"))
    return engine


def output(turn: int) -> str:
    return "\n".join(f"{n:4}  setting_{turn}_{n} = load(SettingsPage{turn})" for n in range(60))


def cline_turn(engine: ContextEngine, turn: int) -> None:
    """A reply ending in an XML call, and the harness's answer: a header, the result, the environment."""
    engine.append(assistant_text(f"Reading file {turn}.\n<read_file>\n<path>src/File{turn}.cs</path>\n</read_file>"))
    engine.append({"role": "user", "content": [
        {"type": "text", "text": f"[read_file for 'src/File{turn}.cs'] Result:"},
        {"type": "text", "text": output(turn)},
        {"type": "text", "text": ENVIRONMENT}]})


def run(engine: ContextEngine, turns: int, turn=cline_turn) -> list:
    sent = []
    for n in range(turns):
        turn(engine, n)
        prepared = engine.prepare(float(n))
        assert request_problems(prepared.messages) == []
        sent.append(prepared)
        engine.record_usage(Usage(cache_read_input_tokens=prepared.estimate), float(n))
    return sent


def user_texts(engine: ContextEngine) -> list[str]:
    return [b["text"] for m in engine.history.messages if m["role"] == "user" for b in blocks_of(m)
            if b.get("type") == "text"]


def test_a_call_written_as_text_is_recognised_by_how_the_reply_ends():
    assert ends_in_call(assistant_text("Let me look.\n<read_file>\n<path>a.cs</path>\n</read_file>\n"))
    assert ends_in_call(assistant_text("DISCUSSION\nRun the tests.\n```\npytest -q\n```"))
    assert not ends_in_call(assistant_text("The tests pass now; the fix is in `a.py`."))
    assert not ends_in_call(user("<task>x</task>"))
    with_tool, _ = tool_call("read_file", {"path": "a.py"}, text="```\nx\n```")
    assert not ends_in_call(with_tool), "a harness with tool_use blocks sends its results in them"


def test_old_text_results_go_to_the_store_the_newest_and_the_task_stay():
    engine = engine_with()
    sent = run(engine, 6)
    texts = user_texts(engine)
    outputs = [t for t in texts if "setting_" in t or "old result cleared" in t]
    assert [t for t in outputs if t.startswith("[old result cleared")] == outputs[:4]
    assert outputs[4:] == [output(4), output(5)], "the newest keep_recent stay verbatim"
    for turn, text in enumerate(outputs[:4]):
        ref = text.split('read_file path="')[1].split('"')[0]
        assert engine.store.get(ref) == output(turn), "lossless: the original reads back by its ref"
    assert texts[0].startswith("<task>"), "the task is the user's own words"
    assert "[read_file for 'src/File0.cs'] Result:" in texts, "a short header is not worth a placeholder"
    assert engine.stats[rw.CLEAR_TEXT].count == 4
    assert any(p.batch is not None for p in sent)
    off = engine_with(clear_text_results=False)
    run(off, 6)
    assert [t for t in user_texts(off) if "setting_" in t] == [output(n) for n in range(6)]


def test_in_a_session_with_tool_calls_user_text_is_the_users_own_words():
    def mixed_turn(engine: ContextEngine, turn: int) -> None:
        message, tool_use_id = tool_call("run_shell", {"command": "make"})
        engine.append(message)
        engine.append(results([(tool_use_id, "ok")]))
        engine.append(assistant_text("Here is the plan:\n```\nmake check\n```"))
        engine.append(user(output(turn)))  # the user pastes a log

    engine = engine_with()
    run(engine, 6, turn=mixed_turn)
    assert [t for t in user_texts(engine) if "setting_" in t] == [output(n) for n in range(6)]
    assert engine.stats[rw.CLEAR_TEXT].count == 0


def test_a_reply_that_ends_without_a_call_is_answered_by_the_user_not_the_harness():
    def chat_turn(engine: ContextEngine, turn: int) -> None:
        engine.append(assistant_text("I think the layout comes from the grid."))
        engine.append(user(output(turn)))

    engine = engine_with()
    run(engine, 6, turn=chat_turn)
    assert engine.stats[rw.CLEAR_TEXT].count == 0


def test_a_compaction_does_not_quote_text_results_as_the_users_words():
    engine = engine_with(clear_text_results=False)
    run(engine, 6)
    quoted = user_texts_before(engine.history, len(engine.history.messages) - 1)
    assert quoted[0].startswith("<task>")
    assert not any("setting_" in t or "Result:" in t for t in quoted)


def test_a_restart_finds_the_same_text_results():
    engine = engine_with(clear_keep_recent=3, batch_payoff=1.0)  # deferred: some still verbatim to find
    run(engine, 7)
    rows = [message_row(engine, i) for i in range(len(engine.history.messages))]
    again = ContextEngine(config=engine.config, store=engine.store)
    restore(again, rows, engine_state(engine))
    assert again.history.text_results == engine.history.text_results
    assert engine.history.text_results.live and len(engine.history.text_results.order) == 7
    assert list(again.history.text_results.candidates(3)) == list(engine.history.text_results.candidates(3))


def test_a_cline_session_costs_less_than_the_seed_and_than_itself_with_the_layer_off():
    for seed in (0, 1, 2):
        trace = results_as_user_text(seed)
        on = replay_trace(trace["id"], trace["messages"], "default", 32_000)
        off = replay_trace(trace["id"], trace["messages"], "default", 32_000,
                           config=ContextConfig(clear_text_results=False))
        baseline = replay_trace(trace["id"], trace["messages"], "seed", 32_000)
        assert on.invalid_requests == 0 and on.over_window == 0
        assert on.cost + on.reread_cost < 0.95 * (baseline.cost + baseline.reread_cost), seed
        assert on.cost < 0.9 * off.cost, seed


@settings(max_examples=40, deadline=None)
@given(sizes=st.lists(st.integers(min_value=0, max_value=30_000), min_size=1, max_size=30),
       window=st.sampled_from([16_000, 32_000, 64_000]), keep=st.integers(min_value=0, max_value=5),
       bare=st.booleans())
def test_any_text_result_session_stays_valid_within_the_window_and_every_ref_reads_back(sizes, window, keep, bare):
    engine = ContextEngine(config=ContextConfig(window=window, system_tokens=2_000, clear_keep_recent=keep),
                           store=MemoryStore())
    engine.append(user("<task>\nFix it.\n</task>"))
    for n, size in enumerate(sizes):
        engine.append(assistant_text(f"Step {n}.\n```\ncat part{n}.txt\n```"))
        observation = f"OBSERVATION:\n{'x' * size} {n}"  # a bare string (SWE-agent) or a text block
        engine.append({"role": "user", "content": observation if bare else [{"type": "text", "text": observation}]})
        prepared = engine.prepare(10.0 * n)
        if prepared.compaction_due:
            engine.apply_summary(engine.summary_request(), "<summary>the work so far</summary>")
            prepared = engine.prepare(10.0 * n, allow_compaction=False)
        assert request_problems(prepared.messages) == []
        assert prepared.estimate <= engine.config.effective_window
        engine.record_usage(Usage(cache_read_input_tokens=prepared.estimate), 10.0 * n)
    for text in user_texts(engine):
        if text.startswith("[old result cleared"):
            ref = text.split('read_file path="')[1].split('"')[0]
            assert engine.store.get(ref) is not None


def test_a_session_that_made_a_tool_call_keeps_its_user_text_after_a_compaction_and_a_restart():
    engine = engine_with()
    message, tool_use_id = tool_call("run_shell", {"command": "make"})
    engine.append(message)
    engine.append(results([(tool_use_id, "ok")]))
    assert not engine.history.text_results.active
    rebuilt = engine.history.rebuilt([user("<summary>make ran</summary>"),
                                      assistant_text("Next:\n```\nmake check\n```"), user(output(0))])
    assert rebuilt.records == {} and not rebuilt.text_results.active, "the tail has no call; the session had"
    engine.history = rebuilt
    rows = [message_row(engine, i) for i in range(len(engine.history.messages))]
    again = ContextEngine(config=engine.config, store=engine.store)
    restore(again, rows, engine_state(engine))
    assert not again.history.text_results.active
    assert list(plan_clear_text_results(again.history, again.config, 0)) == []


def test_a_text_result_sent_as_a_bare_string_is_cleared_once():
    # SWE-agent style: string content throughout. A block of a bare string is made anew each time it is
    # read, so a rewrite that looked it up by identity changed nothing and counted a saving (fixed)
    engine = engine_with()
    for n in range(5):
        engine.append({"role": "assistant", "content": f"DISCUSSION\nOpen it.\n```\nopen file{n}.py\n```"})
        engine.append({"role": "user", "content": "OBSERVATION:\n" + output(n)})
        prepared = engine.prepare(float(n))
        assert request_problems(prepared.messages) == []
        engine.record_usage(Usage(cache_read_input_tokens=prepared.estimate), float(n))
    texts = [t for t in user_texts(engine) if "OBSERVATION" in t or "old result cleared" in t]
    assert [t.startswith("[old result cleared") for t in texts] == [True, True, True, False, False]
    assert engine.stats[rw.CLEAR_TEXT].count == 3


def test_an_old_text_result_the_model_named_lately_stays_when_its_neighbours_go():
    def naming_turn(engine: ContextEngine, turn: int) -> None:
        said = "SettingsPage1 holds it. " if turn >= 2 else ""  # a name only output(1) shows
        engine.append(assistant_text(f"{said}Reading {turn}.\n<read_file>\n<path>src/F{turn}.cs</path>\n</read_file>"))
        engine.append({"role": "user", "content": [{"type": "text", "text": output(turn)}]})

    for keep_named, survives in ((2, True), (0, False)):
        engine = engine_with(clear_keep_named_turns=keep_named)
        run(engine, 7, turn=naming_turn)
        texts = [t for t in user_texts(engine) if "setting_" in t or "old result cleared" in t]
        assert (texts[1] == output(1)) is survives
        assert all(t.startswith("[old result cleared") for n, t in enumerate(texts[:5]) if n != 1)


def test_the_report_lists_every_cleared_text_result_and_superseded_block_with_its_original():
    engine = engine_with(clear_keep_recent=1)
    run(engine, 4)
    listed = {p.layer: [] for p in engine.placeholders()}
    for p in engine.placeholders():
        listed[p.layer].append(p)
    assert [engine.store.get(p.ref) for p in listed["clearedTextResult"]] == [output(n) for n in range(3)]
    assert [p.original_chars for p in listed["clearedTextResult"]] == [len(output(n)) for n in range(3)]
    assert all(p.tool == "(result as user text)" and p.tool_use_id == "" for p in listed["clearedTextResult"])
    assert [p.tool for p in listed["superseded"]] == ["<environment_details>"] * 3
    assert all(engine.store.get(p.ref) == ENVIRONMENT for p in listed["superseded"])


def test_nothing_before_the_last_requests_frontier_changes_when_an_old_named_text_result_goes_at_last():
    # output(1) is named by the replies of turns 2-5 and so kept while its neighbours go; then no longer:
    # the batch that clears it changes message 4, so the frontier (where the cache is read up to) must
    # never have passed it.
    def naming_turn(engine: ContextEngine, turn: int) -> None:
        said = "SettingsPage1 holds it. " if 2 <= turn <= 5 else ""
        engine.append(assistant_text(f"{said}Reading {turn}.\n<read_file>\n<path>src/F{turn}.cs</path>\n</read_file>"))
        engine.append({"role": "user", "content": [{"type": "text", "text": output(turn)}]})

    engine = engine_with(clear_keep_named_turns=2)
    sent = run(engine, 12, turn=naming_turn)
    cleared_late = [n for n, p in enumerate(sent) if p.batch is not None and any(
        r.layer == rw.CLEAR_TEXT and r.message == 4 for r in p.batch.rewrites)]
    assert cleared_late and cleared_late[0] > 4, "the named result went only once no longer named"
    for before, after in zip(sent, sent[1:]):
        if before.frontier is not None:
            assert after.messages[:before.frontier + 1] == before.messages[:before.frontier + 1]


def chat_with_code_turn(engine: ContextEngine, turn: int) -> None:
    """A chat before any tool call: the reply ends in a code block, the user pastes what it printed."""
    engine.append(assistant_text(f"Try this:\n```\npython settings_{turn}.py\n```"))
    engine.append(user(f"It printed this, what now?\n{output(turn)}"))


def test_in_the_agents_own_sessions_a_paste_after_a_code_block_is_the_users_and_stays():
    # agentls calls its tools with tool_use blocks: a reply ending in a code block is advice, not a call
    from agentls.agent.settings import AgentSettings, context_config

    agent_config = context_config(AgentSettings())
    assert agent_config.text_calls is False
    engine = engine_with(text_calls=agent_config.text_calls)
    run(engine, 6, turn=chat_with_code_turn)
    pastes = [t for t in user_texts(engine) if "setting_" in t]
    assert pastes == [f"It printed this, what now?\n{output(n)}" for n in range(6)], "verbatim, all of them"
    assert engine.stats[rw.CLEAR_TEXT].count == 0
    quoted = user_texts_before(engine.history, len(engine.history.messages) - 1)
    assert any("setting_0_" in t for t in quoted), "a summary quotes the user's words"
    # a replayed harness that writes calls as text answered the same way: results, cleared and not quoted
    harness = engine_with()
    run(harness, 6, turn=chat_with_code_turn)
    assert harness.stats[rw.CLEAR_TEXT].count > 0
    assert not any("setting_0_" in t for t in user_texts_before(harness.history, len(harness.history.messages) - 1))


def test_the_agents_setting_survives_a_compaction_and_a_restart():
    engine = engine_with(text_calls=False, clear_keep_recent=3)
    run(engine, 4, turn=chat_with_code_turn)
    engine.history = engine.history.rebuilt(list(engine.history.messages))  # what a compaction installs
    rows = [message_row(engine, i) for i in range(len(engine.history.messages))]
    again = ContextEngine(config=engine.config, store=engine.store)
    restore(again, rows, engine_state(engine))
    for history in (engine.history, again.history):
        assert not history.text_results.active and not history.text_results.order
