"""The four defects of issue 31, each through the real engine or the real replay."""

import json

from hypothesis import given, settings, strategies as st

from agentls.context import ContextConfig, ContextEngine, MemoryStore
from agentls.context.blocks import message_chars, result_text
from agentls.context.compact import OMITTED_MARK
from agentls.context.placeholders import MIN_REWRITE_SAVING, snipped
from agentls.context.store import result_ref
from agentls.context.tokens import CHARS_PER_TOKEN
from agentls.evaluation.replay import is_call, load_trace, replay_trace
from synth import assistant_text, read_turn, results, tool_call, user

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


# (a) a snip or a clear never rewrites a block into something not clearly smaller

@settings(max_examples=40, deadline=None)
@given(chars=st.integers(min_value=1, max_value=3_000), path=st.text("abc/._", min_size=1, max_size=120))
def test_a_stale_result_is_snipped_only_when_its_placeholder_is_clearly_smaller(chars, path):
    engine = engine_with(snip_at=0.0, clear_keep_recent=10)  # the snipped turn is not yet old enough to fold
    first = read_turn(engine, path, "x" * chars)
    read_turn(engine, path, "y" * chars)
    for i in range(3):
        read_turn(engine, f"other{i}", "o")
    engine.prepare(now=0)
    record = engine.history.records[first]
    kept = text_of(engine, first)
    if kept == "x" * chars:  # not snipped: it would not have freed the margin
        placeholder = snipped(record, result_ref(first))
        assert engine.config.tokens(chars) - engine.config.tokens(len(placeholder)) < MIN_REWRITE_SAVING
    else:
        assert engine.config.tokens(chars) - engine.config.tokens(len(kept)) >= MIN_REWRITE_SAVING


def test_short_stale_results_and_short_old_results_stay_verbatim():
    # On main: the 20-char result was snipped (saves max(0, 5 - 25) = 0) into a 100+ char placeholder.
    engine = engine_with(snip_at=0.0, clear_at=0.0, clear_keep_recent=1)
    first = read_turn(engine, "src/a/long/path/to/app.py", "short old version\n")
    read_turn(engine, "src/a/long/path/to/app.py", "short new version\n")
    for i in range(3):
        read_turn(engine, f"other{i}.py", "tiny\n")
    engine.prepare(now=0)
    assert text_of(engine, first) == "short old version\n"
    assert engine.stats["snip"].count == 0 and engine.stats["clear"].count == 0


# (b) the summary request counts the output reserve once

def test_the_summary_request_at_32k_is_not_cut_and_extends_the_last_request():
    # On main the limit was effective_window (28.8K) - summary_max_tokens - system = 21.8K: a request due at
    # 85% of 28.8K (24.5K) always lost its oldest turns, so its cache, and was written anew.
    config = ContextConfig(window=32_000, system_tokens=3_000, compact_at=0.85)
    engine = ContextEngine(config=config, store=MemoryStore())
    engine.append(user("start"))
    while engine.estimate() < 0.86 * config.effective_window:
        read_turn(engine, f"f{len(engine.history.messages)}.py", "line of code\n" * 300)
    request = engine.summary_request()
    assert request is not None
    first = request.messages[0]["content"][0]
    assert first.get("text") != OMITTED_MARK
    assert request.messages[:-1] == engine.history.messages[:-1]  # the same prefix: read from the cache
    assert sum(engine.history.msg_tokens) + config.system_tokens + request.max_tokens <= config.window


# (c) protected tools' results are protected by size

def test_a_long_write_confirmation_is_cleared_a_short_one_is_kept():
    # On main both stayed verbatim: every edit_file / write_file result was protected at any length.
    engine = engine_with(clear_at=0.0, clear_keep_recent=1)
    short_call, short_id = tool_call("edit_file", {"path": "a.py", "old_text": "a", "new_text": "b"})
    engine.append(short_call)
    engine.append(results([(short_id, "edited a.py")]))
    long_call, long_id = tool_call("write_file", {"path": "b.py", "content": "c"})
    engine.append(long_call)
    engine.append(results([(long_id, "wrote b.py; the file now reads:\n" + "line\n" * 2_000)]))
    read_turn(engine, "c.py", "newest\n")
    engine.prepare(now=0)
    assert text_of(engine, short_id) == "edited a.py"
    # cleared, and with it the whole turn folded into an index line (fold_turns.py)
    assert long_id not in engine.history.records and long_id in engine.folded_lines
    assert engine.store.get(result_ref(long_id)).endswith("line\n" * 2_000)


# (d) the replay tells the engine the TTL and prices the model's output

def paused_trace(tmp_path):
    messages = [user("fix the bug")]
    for i in range(16):
        call, tool_use_id = tool_call("read_file", {"path": f"m{i}.py"}, text=f"step {i}")
        messages.append(call)
        messages.append(results([(tool_use_id, f"{i} output line\n" * 200)]))
    messages.append(assistant_text("fixed"))
    path = tmp_path / "paused.json"
    path.write_text(json.dumps({"id": "paused", "messages": messages}))
    return load_trace(str(path))


def test_the_replay_tells_the_engine_the_ttl_so_a_pause_under_the_hour_is_no_idle_cache(tmp_path):
    # On main the engine was never told the 1-hour TTL the requests carried: a 15-minute pause counted as an
    # expired cache and the microcompact cleared results whose prefix the cache still held (and main's
    # TraceResult had no microcompacted figure: AttributeError).
    trace_id, messages = paused_trace(tmp_path)
    idle = {ttl: replay_trace(trace_id, messages, "default", 200_000, ttl=ttl, pauses=(4, 900.0)).microcompacted
            for ttl in ("5m", "1h")}
    assert idle["5m"] > 0  # past the 5-minute TTL the whole cache is gone: microcompact fires
    assert idle["1h"] == 0  # under the hour the prefix is still read: nothing is cleared for idleness


def test_the_replay_bills_every_reply_as_output(tmp_path):
    # On main output_tokens was 0 without a summary: replies cost nothing.
    trace_id, messages = paused_trace(tmp_path)
    result = replay_trace(trace_id, messages, "none", 200_000)
    replies = sum(message_chars(messages[i + 1]) / CHARS_PER_TOKEN
                  for i in range(len(messages)) if is_call(messages, i))
    assert result.output_tokens == replies > 0
    plain = result.cost - 5.0 * replies
    assert plain > 0 and result.cost > plain
