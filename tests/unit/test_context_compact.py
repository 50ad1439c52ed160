import pytest

from agentls.context import ContextConfig, ContextEngine, MemoryStore
from agentls.context.blocks import message_chars
from agentls.context.compact import (FILES_MARK, OMITTED_MARK, SUMMARY_MARK, USER_TEXTS_MARK, SummaryError,
                                     parse_summary)
from agentls.evaluation.seed_policy import SeedPolicy
from agentls.context.structure import request_problems
from synth import assistant_text, read_turn, results, tool_calls, user

SUMMARY = "<analysis>scratch thoughts</analysis>\n<summary>1. Goal: fix the parser\n6. Next step: run tests</summary>"


def long_session(engine: ContextEngine, turns: int = 6, body_chars: int = 6_000) -> None:
    for t in range(turns):
        engine.append(user(f"request number {t}: please look at file{t}.py"))
        read_turn(engine, f"file{t}.py", f"contents of file{t}\n" * (body_chars // 20))
        engine.append(assistant_text(f"done with request {t}"))
    engine.append(user("final request"))


def make_engine(**settings) -> ContextEngine:
    base = dict(window=12_000, output_reserve=0, clear_at=10.0, snip_at=10.0, budget_soft_at=10.0,
                budget_hard_at=10.0, compact_at=0.85)  # the mechanics of a summary at a set threshold
    base.update(settings)
    return ContextEngine(config=ContextConfig(**base), store=MemoryStore())


def test_compaction_mid_tool_loop_never_orphans_a_tool_result():
    engine = make_engine()
    long_session(engine)
    call, ids = tool_calls([("read_file", {"path": "x.py"}), ("grep_search", {"pattern": "def"})])
    engine.append(call)
    engine.append(results([(ids[0], "x = 1\n" * 2_000), (ids[1], "x.py:1: def\n")]))
    prepared = engine.prepare(now=0)
    assert prepared.compaction_due
    request = engine.summary_request()
    assert request_problems(request.messages) == []
    outcome = engine.apply_summary(request, SUMMARY)
    messages = engine.prepare(now=1, allow_compaction=False).messages
    assert request_problems(messages) == []
    assert messages[0]["content"][0]["text"].startswith(SUMMARY_MARK)
    assert messages[-1]["content"][0]["tool_use_id"] == ids[0]  # the loop goes on where it was
    assert outcome.tokens_after < outcome.tokens_before
    assert "scratch thoughts" not in str(messages)  # the analysis is discarded


def test_compaction_between_turns_keeps_the_latest_request_and_user_words():
    engine = make_engine(user_text_budget_tokens=3_000)
    long_session(engine)
    request = engine.summary_request()
    engine.apply_summary(request, SUMMARY)
    messages = engine.history.messages
    assert request_problems(messages) == []
    assert messages[-1]["content"][0]["text"] == "final request"
    quoted = next(b["text"] for b in messages[0]["content"] if b["text"].startswith(USER_TEXTS_MARK))
    for t in range(5):
        assert f"request number {t}: please look at file{t}.py" in quoted


def test_user_words_beyond_the_budget_keep_the_newest():
    engine = make_engine(user_text_budget_tokens=30)
    long_session(engine)
    engine.apply_summary(engine.summary_request(), SUMMARY)
    quoted = next(b["text"] for b in engine.history.messages[0]["content"] if b["text"].startswith(USER_TEXTS_MARK))
    assert "request number 0" not in quoted
    assert "request number 4" in quoted or "request number 5" in quoted


def test_recently_read_files_are_reattached_within_bounds():
    engine = make_engine(window=200_000, reattach_files=2, reattach_file_tokens=500)
    long_session(engine, turns=6, body_chars=6_000)
    engine.apply_summary(engine.summary_request(manual=True), SUMMARY)
    files = next(b["text"] for b in engine.history.messages[0]["content"] if b["text"].startswith(FILES_MARK))
    assert files.count("## file") == 2
    assert len(files) < 2 * 500 * 4 + 400
    assert "contents of file" in files


def test_a_small_window_keeps_a_longer_tail_instead_of_reattaching_files():
    small, large = ContextConfig(window=32_000), ContextConfig(window=200_000)
    assert small.reattach_total_tokens == 0 < large.reattach_total_tokens
    assert small.compact_tail_tokens / small.effective_window > large.compact_tail_tokens / large.effective_window
    for config in (small, large):  # the summary message's room is the same share of any window
        room = config.reattach_total_tokens + config.compact_tail_tokens
        assert room == pytest.approx(0.2 * config.effective_window)
    engine = make_engine(reattach_files=2, reattach_file_tokens=500)
    long_session(engine, turns=6, body_chars=6_000)
    engine.apply_summary(engine.summary_request(), SUMMARY)
    assert not any(b["text"].startswith(FILES_MARK) for b in engine.history.messages[0]["content"])


def test_manual_instructions_reach_the_summary_prompt():
    engine = make_engine(window=1_000_000)
    long_session(engine)
    request = engine.summary_request("keep the list of failing tests", manual=True)
    assert "keep the list of failing tests" in request.messages[-1]["content"][-1]["text"]
    assert "<summary>" in request.messages[-1]["content"][-1]["text"]


def test_summary_request_that_would_overflow_drops_the_oldest_turns():
    engine = make_engine(window=12_000, compact_tail_fraction=0.2)
    long_session(engine, turns=8, body_chars=8_000)
    total = sum(message_chars(m) for m in engine.history.messages) // 4
    assert total > 12_000
    request = engine.summary_request()
    sent = sum(message_chars(m) for m in request.messages) // 4
    assert sent <= 12_000 - engine.config.summary_max_tokens
    assert request_problems(request.messages) == []



def test_summary_request_over_the_window_stops_at_the_cut_and_keeps_the_oldest_turns():
    """The window forced this compaction, so the whole history does not fit the summary call: it stops at
    the cut (the tail is kept verbatim anyway), and the oldest turns — a previous summary among them — stay."""
    engine = make_engine(window=12_000, compact_tail_fraction=0.2)
    long_session(engine, turns=6, body_chars=6_000)
    limit = 12_000 - engine.config.summary_max_tokens
    assert engine.history.total_tokens > limit
    request = engine.summary_request()
    assert len(request.messages) == request.cut
    assert request.messages[0] == engine.history.messages[0]
    assert OMITTED_MARK not in str(request.messages)
    assert request.messages[-1]["role"] == "user" and "write a summary" in str(request.messages[-1]["content"][-1])
    assert sum(message_chars(m) for m in request.messages) // 4 <= limit
    assert request_problems(request.messages) == []


def test_parse_summary_keeps_only_the_summary_and_rejects_empty():
    assert parse_summary(SUMMARY).startswith("1. Goal")
    assert parse_summary("no tags at all") == "no tags at all"
    with pytest.raises(SummaryError):
        parse_summary("<analysis>only thoughts</analysis>")


def test_circuit_breaker_after_three_failures_then_emergency_keeps_window():
    engine = make_engine()
    long_session(engine, turns=8)
    for _ in range(3):
        assert engine.prepare(now=0).compaction_due
        request = engine.summary_request()
        with pytest.raises(SummaryError):
            engine.apply_summary(request, "<analysis>nothing</analysis>")
    prepared = engine.prepare(now=0)
    assert not prepared.compaction_due  # the breaker is open
    assert prepared.estimate <= engine.config.effective_window
    assert request_problems(prepared.messages) == []


def test_seed_style_compaction_orphans_a_tool_result_mid_loop_ours_does_not():
    seed = SeedPolicy(window=20_000, system_tokens=0)
    seed.append(user("go"))
    for i in range(4):
        call, ids = tool_calls([("read_file", {"path": f"s{i}.py"})])
        seed.append(call)
        seed.append(results([(ids[0], "s\n" * 10_000)]))
    seed.after_call(19_000)
    messages, summaries = seed.prepare(lambda m: "summary")
    assert summaries and any("answers no tool_use" in p for p in request_problems(messages))
