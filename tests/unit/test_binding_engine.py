"""Bound thinking in the context engine (issue 29): the release rule, server-side editing and compaction,
the model's cache prices. The API's side is mock_api/binding.py's prefix check."""

from __future__ import annotations

from agentls.context import ContextConfig, ContextEngine, MemoryStore
from agentls.context.binding import binding_end, release_thinking, thinking_places
from agentls.context.compact import PINNED_MARK
from agentls.context.engine_state import engine_state, message_row, restore
from agentls.context.policy import plan_batch
from agentls.context.server_editing import CLEAR_TOOL_USES, clear_at_least, context_management
from agentls.context.structure import request_problems
from agentls.mock_api.binding import BindingRegistry

SYSTEM = "You are a coding agent."
TOOLS = [{"name": "read_file", "input_schema": {"type": "object"}}]


def bound_session(turns: int = 4, body: int = 2_000, **settings) -> tuple[ContextEngine, BindingRegistry]:
    """A session whose every reply carries a thinking block signed for the request before it."""
    base = dict(window=200_000, thinking_bound=True)
    base.update(settings)
    engine = ContextEngine(config=ContextConfig(**base), store=MemoryStore())
    registry = BindingRegistry()
    engine.append({"role": "user", "content": [{"type": "text", "text": "go"}]})
    for turn in range(turns):
        messages = engine.prepare(now=float(turn)).messages
        thinking = registry.produce(SYSTEM, TOOLS, messages, [],
                                    {"type": "thinking", "thinking": f"t{turn}", "signature": ""})
        tool_use = {"type": "tool_use", "id": f"toolu_{turn}", "name": "read_file", "input": {"path": f"f{turn}"}}
        engine.append({"role": "assistant", "content": [thinking, tool_use]})
        engine.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{turn}", "content": f"line {turn}\n" * (body // 7)}]})
    return engine, registry


def test_release_keeps_the_oldest_thinking_contiguous_and_counts_what_went():
    engine, registry = bound_session()
    history = engine.history
    assert binding_end(history.messages) == len(history.messages) - 1  # only the new results may change
    before = thinking_places(history.messages)
    count, tokens = release_thinking(history, 3)  # message 3: the second reply
    assert count == 3 and tokens > 0
    assert thinking_places(history.messages) == before[:1]
    assert registry.check(SYSTEM, TOOLS, history.messages) == []


def test_a_deliberate_rewrite_under_bound_thinking_releases_from_its_first_change():
    engine, registry = bound_session(window=12_000, output_reserve=0)
    big = {"type": "text", "text": "x" * 30_000}
    engine.history.extend_last_user([big])
    assert engine.fit_user_texts(0.2) >= 1  # cuts the new text (not sent yet): no thinking released
    assert engine.released.count == 0
    with engine.rewriting():  # any change to message 2 (a result the model saw) is a deliberate rewrite
        engine.history.rewrite_result("toolu_0", "[gone]", "cleared")
    assert engine.released.count == 3 and engine.binding_figures().thinking_released == 3
    assert registry.check(SYSTEM, TOOLS, engine.prepare(now=10.0).messages) == []


def test_bound_engine_plans_no_batch_where_the_unbound_one_would():
    engine, registry = bound_session(turns=8, body=9_000, window=40_000, clear_keep_recent=2)
    prepared = engine.prepare(now=100.0)
    assert prepared.batch is None and registry.check(SYSTEM, TOOLS, prepared.messages) == []
    unbound = ContextConfig(window=40_000, clear_keep_recent=2)
    batch = plan_batch(engine.history, unbound, engine.estimate(), cold=True, idle=False)
    assert batch is not None and batch.rewrites  # what the bound engine declined


def test_server_editing_asks_the_api_to_clear_in_batches_that_pay_back():
    assert context_management(ContextConfig(thinking_bound=True)) is None  # the server does not edit
    assert context_management(ContextConfig(server_editing=True)) is None  # not bound: the client clears
    config = ContextConfig(thinking_bound=True, server_editing=True)
    edit = context_management(config)["edits"][0]
    window = config.effective_window
    assert edit["type"] == CLEAR_TOOL_USES
    assert edit["trigger"] == {"type": "input_tokens", "value": int(config.budget_hard_at * window)}
    assert edit["keep"] == {"type": "tool_uses", "value": config.server_keep_recent}
    assert edit["exclude_tools"] == sorted(config.protected_tools)
    amount = edit["clear_at_least"]["value"]
    assert config.min_cacheable_tokens <= amount <= edit["trigger"]["value"]
    # The payback rule: the smallest C with read * C^2 / g >= (write - read) * (T - C).
    trigger, growth = 100_000.0, 4_000.0
    c = clear_at_least(trigger, growth, 0.1, 1.25)
    assert abs(0.1 * c * c / growth - 1.15 * (trigger - c)) < 1e-6 * trigger
    assert clear_at_least(trigger, growth, 0.1, 2.0) > c  # a dearer write needs a bigger clear
    cheap = context_management(config.updated(write_price=0.2))["edits"][0]["clear_at_least"]["value"]
    assert cheap < amount


def test_what_the_api_cleared_is_named_and_stays_readable():
    engine, _ = bound_session(turns=5, server_editing=True)
    engine.record_applied_edits([{"type": CLEAR_TOOL_USES, "cleared_tool_uses": 2, "cleared_input_tokens": 900}])
    assert engine.binding_figures().cleared_by_api == ("toolu_0", "toolu_1")
    cleared = [p for p in engine.placeholders() if p.layer == "clearedByApi"]
    assert [p.tool_use_id for p in cleared] == ["toolu_0", "toolu_1"]
    assert engine.store.get(cleared[0].ref).startswith("line 0")
    rows = [message_row(engine, i) for i in range(len(engine.history.messages))]
    again = ContextEngine(config=engine.config)
    restore(again, rows, engine_state(engine))
    assert again.binding_figures() == engine.binding_figures()
    engine.record_applied_edits([])  # a request under the trigger: nothing cleared in it
    assert engine.binding_figures().cleared_by_api == ()


def test_server_compaction_puts_the_block_first_and_restates_what_must_stay():
    engine, registry = bound_session(turns=3, server_compaction=True)
    engine.add_system_message([{"type": "text", "text": "Only touch src/."}])
    engine.pinned = "- [ ] fix the parser"
    block = {"type": "compaction", "content": "Read f0..f2; the parser fails on empty input.", "signature": "s"}
    result = engine.apply_server_compaction(block, "auto")
    messages = engine.prepare(now=50.0).messages
    assert messages[0]["content"][0] == block
    assert messages[0]["content"][1]["text"] == f"{PINNED_MARK}\n- [ ] fix the parser"
    assert messages[1] == {"role": "system", "content": [{"type": "text", "text": "Only touch src/."}]}
    assert request_problems(messages) == [] and registry.check(SYSTEM, TOOLS, messages) == []
    assert result.compacted and result.tokens_after < result.tokens_before and engine.compactions == 1
    failed = engine.apply_server_compaction({"type": "compaction", "content": None}, "auto")
    assert not failed.compacted and engine.history.messages == messages


def test_a_kept_tail_after_a_server_compaction_loses_its_thinking():
    # the tail as it was (fold.py off): folding its settled turns is the next test
    engine, registry = bound_session(turns=4, body=4_000, window=12_000, output_reserve=0, fold_settled=False)
    cut = engine.compaction_cut()
    assert cut == 5 and registry.check(SYSTEM, TOOLS, engine.history.messages[:cut]) == []  # what is sent
    block = {"type": "compaction", "content": "the first two turns", "signature": "s"}
    engine.apply_server_compaction(block, "auto", upto=cut)  # keeps the last two replies and their results
    messages = engine.prepare(now=60.0).messages
    assert thinking_places(messages) == [] and engine.released.count == 2
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user"]
    assert registry.check(SYSTEM, TOOLS, messages) == []


def test_a_settled_turn_folded_at_a_server_compaction_leaves_no_thinking_and_a_valid_request():
    engine, registry = bound_session(turns=4, body=4_000, window=12_000, output_reserve=0)
    cut = engine.compaction_cut()
    block = {"type": "compaction", "content": "the first two turns", "signature": "s"}
    engine.apply_server_compaction(block, "auto", upto=cut)
    messages = engine.prepare(now=60.0).messages
    assert engine.folded.count == 1  # the older kept turn: nothing later names its result
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert thinking_places(messages) == [] and registry.check(SYSTEM, TOOLS, messages) == []
    assert engine.store.get("context://toolu_2") is not None  # its result reads back


def test_the_policy_prices_a_batch_at_the_model_prices():
    engine, _ = bound_session(turns=6, body=9_000, clear_keep_recent=1, window=60_000)  # nothing rewritten
    unbound = engine.config.updated(thinking_bound=False)
    batch = plan_batch(engine.history, unbound, engine.estimate(), cold=False, idle=False,
                       cached_ends=engine.cached_ends)
    dearer = plan_batch(engine.history, unbound.updated(write_price=2.0, read_price=0.2), engine.estimate(),
                        cold=False, idle=False, cached_ends=engine.cached_ends)
    assert batch is not None and dearer is not None and batch.price > 0
    assert abs(dearer.price / batch.price - (2.0 - 0.2) / (1.25 - 0.1)) < 1e-9
    assert abs(dearer.rent / batch.rent - 2.0) < 1e-9


def test_server_editing_is_switched_on_only_once_its_gain_has_paid_the_first_rewrite():
    """Ski rental (server_editing.EditingSwitch): the first edited request re-writes the cache from the first
    cleared result; past the trigger each unedited request gives up the reads of what the edit would clear
    less the kept tail's re-write, and the edit goes on once that adds up to the first re-write's price."""
    window = 24_000  # budget_hard_at (0.7) of it is the trigger
    # prices and a kept tail at which clearing pays (at today's 0.05x reads and 1.25x writes the cleared
    # results must outweigh the kept tail 24 to 1, which a 24K window never holds)
    cheap = dict(window=window, server_editing=True, read_price=0.1, write_price=0.2, server_keep_recent=1)
    engine, _ = bound_session(turns=3, body=3_000, **cheap)
    assert engine.prepare(now=10.0).context_management is None  # under the trigger: nothing to clear
    sent, turn, waited = [], 3, 0
    while not sent and turn < 40:
        engine.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{turn}", "name": "read_file", "input": {"path": f"f{turn}"}}]})
        engine.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{turn}", "content": f"line {turn}\n" * 400}]})
        prepared = engine.prepare(now=float(turn) + 10)
        over = prepared.estimate >= engine.config.budget_hard_at * engine.config.effective_window
        sent = [turn] if prepared.context_management is not None else []
        if over and not sent:
            assert engine.editing.rent > 0  # the gain given up accumulates past the trigger
            waited += 1
        turn += 1
    assert sent, "the edit never went on"
    assert engine.editing.on and waited >= 1, waited  # not on the first request past the trigger
    # once on, it stays on (turning it off would re-write what the API cleared), also across a restart
    rows = [message_row(engine, i) for i in range(len(engine.history.messages))]
    again = ContextEngine(config=engine.config)
    restore(again, rows, engine_state(engine))
    assert again.prepare(now=100.0).context_management is not None
    # where no summary can keep the window, the API's clearing is the only binding-safe way: on at once
    fresh, _ = bound_session(turns=3, body=3_000, window=window, server_editing=True, auto_compact=False)
    # and at today's prices, on the same session, it never pays: no edit while a summary can keep the window
    dear, _ = bound_session(turns=12, body=3_000, window=window, server_editing=True)
    assert all(dear.prepare(now=50.0 + i).context_management is None for i in range(30))
    assert fresh.prepare(now=10.0).context_management is not None


def test_a_compaction_switches_server_editing_off_again():
    engine, _ = bound_session(turns=3, window=24_000, server_editing=True, auto_compact=False)
    assert engine.prepare(now=10.0).context_management is not None and engine.editing.on
    engine.apply_server_compaction({"type": "compaction", "content": "summary", "signature": "s"}, "manual",
                                   upto=len(engine.history.messages))
    assert not engine.editing.on and engine.editing.rent == 0
