"""Issue 9, point 2: a compaction never makes the context bigger.

The scenario of the report: a short conversation in a big window (a file read,
a listing, a search, an @-mention, a selection) compacted by hand. The summary
message must not carry the user's attachments as "their words", must not
re-attach files whose reads are in the kept tail or were already cleared, and
the whole must be smaller than what it replaces; when it cannot be, nothing
changes and the result says so.
"""

import pytest

from agentls.context import ContextConfig, ContextEngine, MemoryStore
from agentls.context.compact import FILES_MARK, USER_TEXTS_MARK
from agentls.context.pipeline import NothingToGain
from agentls.context.store import result_ref
from agentls.context.tokens import Usage
from synth import assistant_text, read_turn, results, tool_calls, user

SUMMARY = "<summary>1. Goal: look around the repository\n6. Next step: wait for the user</summary>"
README = "# Project\n\n" + "Some words about the project and how to run it.\n" * 60


def attached(path: str, body: str, prompt: str) -> dict:
    return {"role": "user", "content": [
        {"type": "text", "text": f"Attached file:///w/{path}:\n```\n{body}\n```"},
        {"type": "text", "text": prompt},
    ]}


def small_session(engine: ContextEngine) -> None:
    engine.append(user("read README.md and tell me what this is"))
    read_turn(engine, "README.md", README)
    engine.append(assistant_text("It is a project; the README explains how to run it."))
    engine.append(user("list the files and grep for TODO"))
    call, ids = tool_calls([("list_files", {"path": "."}), ("grep_search", {"pattern": "TODO"})])
    engine.append(call)
    engine.append(results([(ids[0], "README.md\nsrc/app.py\nsrc/util.py\n"), (ids[1], "src/app.py:3: # TODO\n")]))
    engine.append(assistant_text("Three files; one TODO in src/app.py line 3."))
    engine.append(attached("src/app.py", "def main():\n    pass\n" * 40, "summarise @src/app.py"))
    engine.append(assistant_text("app.py defines main() forty times."))
    selection = "def helper():\n    return 1\n" * 20
    engine.append(attached("src/util.py (lines 1-40)", selection,
                           f"`src/util.py` lines 1-40:\n```\n{selection}```\nexplain"))
    engine.append(assistant_text("helper returns 1."))


def engine_200k() -> ContextEngine:
    return ContextEngine(config=ContextConfig(window=200_000, system_tokens=1_500), store=MemoryStore())


def test_manual_compaction_of_a_small_session_shrinks_or_changes_nothing():
    engine = engine_200k()
    small_session(engine)
    # the real tokenizer counts fewer tokens than chars/4: the meter is anchored on the real count
    engine.record_usage(Usage(input_tokens=10, cache_read_input_tokens=engine.raw_estimate * 3 // 4), now=0)
    before_messages = list(engine.history.messages)
    request = engine.summary_request(manual=True)
    assert request is not None
    try:
        outcome = engine.apply_summary(request, SUMMARY, "manual")
    except NothingToGain:
        assert engine.history.messages == before_messages
        return
    assert outcome.tokens_after < outcome.tokens_before
    assert engine.estimate() == outcome.tokens_after


def test_user_texts_are_carried_once_and_attachments_are_not_user_words():
    engine = engine_200k()
    small_session(engine)
    engine.append(user("one more thing: keep the API stable"))
    engine.append(assistant_text("Noted."))
    request = engine.summary_request(manual=True)
    engine.apply_summary(request, SUMMARY, "manual")
    first = "\n".join(b["text"] for b in engine.history.messages[0]["content"])
    assert first.count("keep the API stable") == 1
    assert first.count("read README.md and tell me what this is") == 1
    assert "def main():" not in first.split(FILES_MARK)[0]  # an attachment is not "your words"
    # a second compaction does not quote the same words again
    engine.append(user("and now the tests"))
    engine.append(assistant_text("Ok."))
    engine.apply_summary(engine.summary_request(manual=True), SUMMARY, "manual")
    first = "\n".join(b["text"] for b in engine.history.messages[0]["content"])
    assert first.count("keep the API stable") == 1
    assert USER_TEXTS_MARK in first


def test_a_file_whose_read_was_cleared_or_sits_in_the_tail_is_not_reattached():
    config = ContextConfig(window=200_000, compact_tail_fraction=0.0)
    engine = ContextEngine(config=config, store=MemoryStore())
    engine.append(user("read a.py and b.py"))
    cleared_id = read_turn(engine, "a.py", "alpha = 1\n" * 300)
    kept_id = read_turn(engine, "b.py", "beta = 2\n" * 300)
    engine.append(assistant_text("read both; a long explanation follows. " * 100))
    engine.append(user("thanks; now explain b"))
    from agentls.context import rewrite as rw
    rw.apply(rw.Rewrite(cleared_id, rw.CLEAR, 0), engine.history, engine.store)
    engine.append(assistant_text("b sets beta"))
    engine.apply_summary(engine.summary_request(manual=True), SUMMARY, "manual")
    first = "\n".join(b["text"] for b in engine.history.messages[0]["content"])
    assert "## a.py" not in first  # the model had not seen a.py for a while: re-attaching only grows
    assert "## b.py" in first
    assert engine.store.get(result_ref(kept_id)) is not None  # every summarised result stays readable


@pytest.mark.parametrize("summary_chars", [20_000, 60_000])
def test_a_summary_longer_than_what_it_replaces_changes_nothing(summary_chars):
    engine = engine_200k()
    small_session(engine)
    before = list(engine.history.messages)
    estimate = engine.estimate()
    with pytest.raises(NothingToGain):
        engine.apply_summary(engine.summary_request(manual=True), f"<summary>{'x' * summary_chars}</summary>", "manual")
    assert engine.history.messages == before
    assert engine.estimate() == estimate
    assert engine.stats["compact"].count == 0
