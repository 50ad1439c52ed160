import re

from agentls.context import ContextConfig, ContextEngine, MemoryStore
from agentls.context.blocks import message_sha1, result_text
from agentls.context.store import input_ref, result_ref
from synth import read_turn, results, tool_call, user
from dataclasses import asdict

OFF = 10.0  # a threshold that is never reached


def engine_with(**settings) -> ContextEngine:
    base = dict(window=20_000, output_reserve=0, clear_at=OFF, snip_at=OFF, budget_soft_at=OFF,
                budget_hard_at=OFF, compact_at=OFF, min_batch_tokens=0, batch_payoff=0.0,
                clear_keep_named_turns=0)  # kept by arrival alone here (naming: test_naming.py)
    base.update(settings)
    engine = ContextEngine(config=ContextConfig(**base), store=MemoryStore())
    engine.append(user("start"))
    return engine


def text_of(engine, tool_use_id):
    return result_text(engine.history.result_block(tool_use_id))


def ref_in(text: str) -> str:
    return re.search(r'read_file path="([^"]+)"', text).group(1)


def test_l0_cuts_one_huge_result_and_keeps_the_full_text():
    engine = engine_with(window=10_000_000)
    body = "".join(f"line {i}\n" for i in range(20_000))  # ~200K chars
    tool_use_id = read_turn(engine, "huge.log", body)
    kept = text_of(engine, tool_use_id)
    assert len(kept) <= 50_000
    assert kept.startswith("line 0\n") and kept.endswith("line 19999\n")
    assert f"of {len(body):,} chars cut here" in kept
    assert engine.store.get(ref_in(kept)) == body
    assert engine.history.records[tool_use_id].state == "truncated"


def test_l1_budgets_old_results_by_utilization_but_not_the_most_recent():
    engine = engine_with(budget_soft_at=0.5, budget_hard_at=0.7, window=60_000)
    big = [read_turn(engine, f"f{i}.txt", chr(97 + i) * 40_000) for i in range(4)]  # 40K tokens
    engine.prepare(now=0)  # ~67%: soft budget (30K chars) for all but the 3 most recent
    assert len(text_of(engine, big[0])) <= 30_000
    assert [len(text_of(engine, i)) for i in big[1:]] == [40_000] * 3
    assert engine.store.get(result_ref(big[0])) == "a" * 40_000
    assert engine.history.records[big[0]].state == "budgeted"


def test_l1_hard_budget_above_seventy_percent():
    engine = engine_with(budget_soft_at=0.5, budget_hard_at=0.7, window=50_000)
    big = [read_turn(engine, f"f{i}.txt", "z" * 40_000) for i in range(4)]  # 80% full
    engine.prepare(now=0)
    assert len(text_of(engine, big[0])) <= 15_000


def test_l2_snips_stale_duplicates_but_never_recent_or_edit_confirmations():
    engine = engine_with(snip_at=0.0, clear_keep_recent=10)  # the snipped turn is not yet old enough to fold
    first = read_turn(engine, "app.py", "old version\n" * 100)
    edit, edit_id = tool_call("edit_file", {"path": "app.py", "old_text": "old", "new_text": "new"})
    engine.append(edit)
    engine.append(results([(edit_id, "edited app.py")]))
    edit2, edit2_id = tool_call("edit_file", {"path": "app.py", "old_text": "new", "new_text": "newer"})
    engine.append(edit2)
    engine.append(results([(edit2_id, "edited app.py")]))
    second = read_turn(engine, "app.py", "new version\n" * 100)
    others = [read_turn(engine, f"other{i}.py", "o\n" * 50) for i in range(3)]
    engine.prepare(now=0)
    stale = text_of(engine, first)
    assert stale.startswith("[stale result: a newer read_file app.py comes later")
    assert engine.store.get(ref_in(stale)) == "old version\n" * 100
    assert text_of(engine, second) == "new version\n" * 100
    assert text_of(engine, edit_id) == "edited app.py"  # edit confirmations are never snipped
    assert all(text_of(engine, i) == "o\n" * 50 for i in others)


def test_snip_spares_the_three_most_recent_results_even_when_stale():
    engine = engine_with(snip_at=0.0)
    a = read_turn(engine, "x.py", "one\n" * 100)
    b = read_turn(engine, "x.py", "two\n" * 100)
    engine.prepare(now=0)
    assert text_of(engine, a) == "one\n" * 100 and text_of(engine, b) == "two\n" * 100


def test_microcompact_after_idle_keeps_only_five_result_bodies():
    engine = engine_with(idle_gap_seconds=300, idle_keep_recent=5)
    ids = [read_turn(engine, f"m{i}.py", f"body {i}\n" * 100) for i in range(8)]
    engine.prepare(now=0)
    engine.record_usage(engine_usage(engine), now=0)
    engine.append({"role": "assistant", "content": [{"type": "text", "text": "done"}]})
    engine.append(user("still there?"))
    engine.prepare(now=299)
    assert all(text_of(engine, i) == f"body {n}\n" * 100 for n, i in enumerate(ids))
    prepared = engine.prepare(now=301)
    cleared = [i for i in ids if text_of(engine, i).startswith("[old result cleared")]
    assert cleared == ids[:3]
    assert prepared.batch.reason == "idle"
    assert engine.stats["microcompact"].count == 3
    for n, tool_use_id in enumerate(cleared):
        assert engine.store.get(result_ref(tool_use_id)) == f"body {n}\n" * 100


def engine_usage(engine):
    from agentls.context.tokens import Usage
    return Usage(cache_read_input_tokens=engine.raw_estimate)


def test_old_tool_inputs_are_cleared_losslessly():
    engine = engine_with(clear_at=0.0, clear_keep_recent=2)
    content = "def f():\n    return 1\n" * 200
    call, write_id = tool_call("write_file", {"path": "big.py", "content": content})
    engine.append(call)
    engine.append(results([(write_id, "wrote big.py")]))
    for i in range(3):
        read_turn(engine, f"r{i}.py", "r\n" * 10)
    engine.prepare(now=0)
    record = engine.history.records[write_id]
    assert record.input_cleared
    block = engine.history.messages[record.use_msg]["content"][0]
    assert block["input"]["path"] == "big.py"
    assert block["input"]["content"].startswith("[cleared to save context")
    assert input_ref(write_id) in block["input"]["content"]
    assert content in engine.store.get(input_ref(write_id))
    assert text_of(engine, write_id) == "wrote big.py"  # the confirmation stays


def test_requests_are_append_only_between_batches():
    engine = engine_with(clear_at=0.0, clear_keep_recent=3, min_batch_tokens=2_000, batch_payoff=0.0)
    previous = None
    batches = 0
    for i in range(40):
        read_turn(engine, f"p{i}.py", f"{i}\n" * 300)  # ~150 tokens each
        prepared = engine.prepare(now=i)
        shas = [message_sha1(m) for m in prepared.messages]
        if previous is not None:
            if prepared.batch is None:
                assert shas[:len(previous)] == previous, f"call {i} rewrote history outside a batch"
            else:
                batches += 1
                assert prepared.batch.saves >= 2_000
        previous = shas
        engine.record_usage(engine_usage(engine), now=i)
    assert 1 <= batches <= 6  # batched, not every call


def test_a_rewritten_block_stays_byte_identical_afterwards():
    engine = engine_with(clear_at=0.0, clear_keep_recent=2, budget_soft_at=0.0, budget_hard_at=0.0,
                         snip_at=0.0, window=1_000_000)
    seen: dict[tuple[int, int], set[str]] = {}
    for i in range(30):
        read_turn(engine, f"s{i % 4}.py", f"{i}\n" * 8_000)
        engine.prepare(now=i)
        for index, message in enumerate(engine.history.messages):
            if message["role"] == "user":
                for b, block in enumerate(message["content"]):
                    if block.get("type") == "tool_result":
                        seen.setdefault((index, b), set()).add(result_text(block))
    assert max(len(forms) for forms in seen.values()) == 2  # the original, then one rewrite


def test_context_report_names_placeholders_and_layers():
    engine = engine_with(clear_at=0.0, clear_keep_recent=1)
    ids = [read_turn(engine, f"c{i}.py", "c\n" * 500) for i in range(3)]
    engine.prepare(now=0)
    report = asdict(engine.report(tools_tokens=100))
    assert set(report) >= {"window", "used", "utilization", "level", "categories", "layers"}
    assert {"system", "tools", "instructions", "user", "assistant", "tool_results"} == set(report["categories"])
    clear = next(layer for layer in report["layers"] if layer["layer"] == "clear")
    assert clear["count"] == 2 and clear["tokens_saved"] > 0
    refs = {p.tool_use_id: p.ref for p in engine.placeholders()}
    assert set(refs) == set(ids[:2])
    assert engine.store.get(refs[ids[0]]) == "c\n" * 500
