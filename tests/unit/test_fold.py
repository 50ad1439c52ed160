"""Folding settled turns (fold.py): at a compaction, the tail's tool turns whose results no later reply names
again become index lines with their context:// refs; the originals read back, the request stays valid, and
a turn still in use, the newest turn and the user's own words stay verbatim."""

from agentls.context import ContextConfig, ContextEngine, MemoryStore
from agentls.context.blocks import blocks_of
from agentls.context.fold import FOLD_MARK, plan_fold
from agentls.context.structure import request_problems
from agentls.context.tokens import Usage
from synth import assistant_text, results, tool_call, user


def engine(fold: bool = True) -> ContextEngine:
    config = ContextConfig(window=64_000, system_tokens=3_000, thinking_bound=True, server_compaction=True,
                           fold_settled=fold, priced_compaction=False)
    e = ContextEngine(config=config, store=MemoryStore())
    e.append(user("make the parser accept tabs"))
    return e


def turn(e: ContextEngine, command: str, output: str, text: str = "") -> str:
    call, tool_use_id = tool_call("run_shell", {"command": command}, text=text)
    e.append(call)
    e.append(results([(tool_use_id, output)]))
    return tool_use_id


def session(e: ContextEngine) -> dict[str, str]:
    """Old work, then a tail where one result is named again later (parse_tabulation) and one is not."""
    for n in range(12):
        turn(e, f"cat old{n}.txt", f"old{n} " * 1_500)
    ids = {"settled": turn(e, "ls src", "src/lexer_helpers.py\nsrc/unrelated_module.py\n" * 20, text="look around"),
           "used": turn(e, "grep -n tab src/parser.py", "src/parser.py:12: def parse_tabulation(line):\n" * 20)}
    e.append({"role": "assistant", "content": [
        {"type": "text", "text": "parse_tabulation is where tabs are split"},
        {"type": "tool_use", "id": "toolu_last", "name": "run_shell", "input": {"command": "pytest"}}]})
    e.append(results([("toolu_last", "1 failed: test_tabs " * 30)]))
    ids["newest"] = "toolu_last"
    return ids


def compact(e: ContextEngine) -> None:
    e.prepare(now=0.0)
    e.record_usage(Usage(cache_read_input_tokens=e.raw_estimate), now=0.0)
    cut = e.compaction_cut()
    assert cut is not None
    e.apply_server_compaction({"type": "compaction", "content": "what happened so far"}, "auto", upto=cut)


def test_a_settled_turn_is_folded_into_an_index_line_whose_ref_reads_back():
    e = engine()
    ids = session(e)
    original = next(b["content"] for m in e.history.messages for b in blocks_of(m)
                    if b.get("tool_use_id") == ids["settled"])
    compact(e)
    first = e.history.messages[0]
    index = next(b["text"] for b in blocks_of(first) if b.get("text", "").startswith(FOLD_MARK))
    assert f"context://{ids['settled']}" in index and "run_shell ls src" in index
    assert e.store.get(f"context://{ids['settled']}") == original  # lossless
    ids_left = {b.get("id") or b.get("tool_use_id") for m in e.history.messages for b in blocks_of(m)}
    assert ids["settled"] not in ids_left  # its call and result left the request
    assert ids["used"] in ids_left and ids["newest"] in ids_left  # in use, newest: verbatim
    assert not request_problems(e.history.messages)
    assert e.folded.count >= 1 and e.folded.tokens_saved > 0


def test_without_folding_the_tail_is_kept_as_it_was():
    folded, kept = engine(), engine(fold=False)
    session(folded), session(kept)
    compact(folded), compact(kept)
    assert not any(FOLD_MARK in str(m) for m in kept.history.messages)
    assert folded.history.total_tokens < kept.history.total_tokens


def test_the_newest_turn_and_the_users_words_are_never_folded():
    e = engine()
    for n in range(3):
        turn(e, f"cat f{n}.txt", f"body{n} " * 400)
    e.append(assistant_text("done; anything else?"))
    e.append(user("yes: now spaces too"))
    turn(e, "cat settled_file.txt", "settledcontent " * 300)
    turn(e, "cat newest_file.txt", "newestcontent " * 300)
    fold = plan_fold(e.history, 1, e.config.tokens)
    assert fold is not None
    folded = {e.history.messages[i + 1]["content"][0]["tool_use_id"] for i in fold.turns}
    newest = e.history.messages[-1]["content"][0]["tool_use_id"]
    assert newest not in folded
    kept = fold.kept(e.history.messages)
    assert any("now spaces too" in str(m) for m in kept)  # the user's turn stays, and the roles alternate
    assert not request_problems([{"role": "user", "content": [{"type": "text", "text": "summary"}]}, *kept])


def test_nothing_is_folded_when_every_result_is_named_again():
    e = engine()
    for n in range(4):
        turn(e, f"cat part{n}.txt", f"identifier_number_{n} " * 200,
             text=f"using identifier_number_{n - 1}" if n else "")
    e.append(assistant_text("identifier_number_3 settles it"))
    e.append(user("thanks"))
    assert plan_fold(e.history, 1, e.config.tokens) is None
