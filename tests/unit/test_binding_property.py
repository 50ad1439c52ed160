"""Property (issue 29): on a model that binds thinking to its prefix, every request keeps every carried
thinking block valid.

Generated sessions with a signed thinking block on every assistant turn, every layer armed, small windows,
large results, idle gaps, system messages, manual and automatic compactions (client-side, or the API's
own), server-side editing: every request the engine prepares, and every summary request, sent with one
fixed system prompt and tool list, passes the API's prefix check (mock_api/binding.py: each reply's
thinking is signed against the request that produced it) and the API's request checks. The same sessions
on a model whose thinking is not bound still go through the client-side layers.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from agentls.context import ContextConfig, ContextEngine, MemoryStore
from agentls.context.structure import request_problems
from agentls.context.tokens import Usage
from agentls.mock_api.binding import BindingRegistry
from agentls.mock_api.validation import request_error

EXAMPLES = int(os.environ.get("AGENTLS_PROPERTY_EXAMPLES", "300"))
SYSTEM = [{"type": "text", "text": "You are a coding agent. Work in the repository you are given."}]
TOOLS = [{"name": name, "description": f"the {name} tool", "input_schema": {"type": "object"}}
         for name in ("read_file", "run_shell", "grep_search", "edit_file")]
SUMMARY = "<analysis>x</analysis><summary>1. Goal: go on with the task\n6. Next step: the next file</summary>"

call = st.tuples(st.sampled_from(["read_file", "run_shell", "grep_search", "edit_file"]), st.integers(0, 3),
                 st.sampled_from([40, 900, 5_000, 20_000, 60_000]))
step = st.one_of(
    st.tuples(st.just("tools"), st.lists(call, min_size=1, max_size=3)),
    st.tuples(st.just("answer"), st.sampled_from([20, 800, 6_000])),
    st.tuples(st.just("idle"), st.sampled_from([30, 400, 4_000])),
    st.tuples(st.just("system"), st.sampled_from([30, 600])),
    st.tuples(st.just("compact"), st.booleans()),
)
config = st.fixed_dictionaries({
    "window": st.sampled_from([8_000, 12_000, 20_000, 30_000]),
    "auto_compact": st.booleans(),
    "server_editing": st.booleans(),
    "server_compaction": st.booleans(),
})


class Session:
    """An agent loop in miniature: the engine, the API's binding registry, a clock."""

    def __init__(self, bound: bool, window: int, auto_compact: bool = True, server_editing: bool = False,
                 server_compaction: bool = False) -> None:
        settings_ = ContextConfig(window=window, clear_keep_recent=4, idle_gap_seconds=300, min_batch_tokens=200,
                                  auto_compact=auto_compact, thinking_bound=bound,
                                  server_editing=server_editing and bound,
                                  server_compaction=server_compaction and bound)
        self.engine = ContextEngine(config=settings_, store=MemoryStore())
        self.registry = BindingRegistry()
        self.now = 0.0
        self.counter = 0
        self.failures: list[str] = []
        self.requests = 0
        self.engine.append({"role": "user", "content": [{"type": "text", "text": "Fix the failing tests."}]})

    def check(self, messages: list[dict]) -> None:
        """What the API would say of this request: the prefix check, then the request checks."""
        self.requests += 1
        self.failures += [f.path for f in self.registry.check(SYSTEM, TOOLS, messages)]
        assert request_problems(messages) == []
        # validation.request_error does not know role "system" messages yet (mock_api, another helper's):
        # the rest of the request is checked without them.
        plain = [m for m in messages if m["role"] != "system"]
        body = {"model": "claude-test", "max_tokens": 1024, "system": SYSTEM, "tools": TOOLS, "messages": plain}
        assert request_error(body) is None

    def compact(self, manual: bool) -> None:
        engine = self.engine
        if engine.config.server_compaction:  # the API's on-demand compaction of the turns before the cut
            cut = engine.compaction_cut(manual)
            self.check(engine.history.messages[:cut])  # the compaction request itself
            block = {"type": "compaction", "content": f"summary {self.counter}", "signature": "sig"}
            engine.apply_server_compaction(block, "manual" if manual else "auto", upto=cut)
            return
        request = engine.summary_request("be short" if manual else None, manual=manual)
        if request is None:
            return
        self.check(request.messages)
        try:
            engine.apply_summary(request, SUMMARY, "manual" if manual else "auto")
        except ValueError:
            pass  # nothing to gain: the history is kept

    def reply(self, content: Iterable[dict]) -> None:
        """Prepare the request, check it, and append the reply with a thinking block signed for it."""
        engine = self.engine
        prepared = engine.prepare(self.now)
        if prepared.compaction_due:
            self.compact(manual=False)
            prepared = engine.prepare(self.now, allow_compaction=False)
        self.check(prepared.messages)
        self.counter += 1
        thinking = self.registry.produce(SYSTEM, TOOLS, prepared.messages, [],
                                         {"type": "thinking", "thinking": f"plan {self.counter}", "signature": ""})
        engine.record_usage(Usage(input_tokens=prepared.estimate), self.now)
        self.server_clears(prepared.context_management)
        engine.append({"role": "assistant", "content": [thinking, *content]})
        self.now += 5

    def server_clears(self, management: dict | None) -> None:
        """The API's context editing, roughly: past the trigger, the oldest results but the kept ones."""
        if not management:
            return
        edit = management["edits"][0]
        engine = self.engine
        if engine.estimate() <= edit["trigger"]["value"]:
            engine.record_applied_edits([])
            return
        history = engine.history
        exclude = set(edit.get("exclude_tools", ()))
        eligible = [r for r in history.records.values() if r.result_msg is not None and r.name not in exclude]
        cleared = eligible[:max(0, len(eligible) - edit["keep"]["value"])]
        freed = sum(engine.config.tokens(r.chars) for r in cleared)
        if cleared and freed >= edit["clear_at_least"]["value"]:
            engine.record_applied_edits([{"type": edit["type"], "cleared_tool_uses": len(cleared),
                                          "cleared_input_tokens": freed}])
            engine.record_usage(Usage(input_tokens=max(1, engine.estimate() - freed)), self.now)

    def run(self, steps: list[tuple]) -> None:
        for kind, arg in steps:
            if kind == "tools":
                uses = []
                for name, target, size in arg:
                    self.counter += 1
                    uses.append(({"type": "tool_use", "id": f"toolu_{self.counter:05d}", "name": name,
                                  "input": {"path": f"src/f{target}.py"}}, size))
                self.reply([use for use, _ in uses])
                self.engine.append({"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": use["id"], "content": f"{use['id']} line\n" * (size // 20)}
                    for use, size in uses]})
            elif kind == "answer":
                self.reply([{"type": "text", "text": "done. " * (arg // 6)}])
                self.engine.add_user_blocks([{"type": "text", "text": f"next request {self.counter}"}])
            elif kind == "idle":
                self.now += arg
            elif kind == "system":
                self.engine.add_system_message([{"type": "text", "text": "Keep to the plan. " * (arg // 18)}])
            elif manual := arg:
                self.compact(manual)
        self.reply([{"type": "text", "text": "all done"}])


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(steps=st.lists(step, min_size=1, max_size=30), setup=config)
def test_bound_sessions_never_break_a_carried_thinking_block(steps, setup):
    session = Session(True, **setup)
    session.run(steps)
    assert session.failures == []


def long_session() -> list[tuple]:
    steps: list[tuple] = []
    for index in range(24):
        steps.append(("tools", [("read_file", index % 5, 6_000), ("run_shell", index % 3, 900)]))
        if index % 6 == 5:
            steps += [("answer", 800), ("system", 600), ("idle", 400)]
    return steps


def test_a_long_bound_session_keeps_the_window_without_rewriting_under_thinking():
    session = Session(True, 20_000)
    session.run(long_session())
    engine = session.engine
    assert session.failures == [] and session.requests > 24
    assert layer_rewrites(engine) == 0  # no batch of old messages
    assert engine.compactions > 0  # the window was kept by summaries, the kept turns without their thinking


def test_the_same_session_unbound_uses_the_client_side_layers():
    session = Session(False, 20_000)
    session.run(long_session())
    engine = session.engine
    assert layer_rewrites(engine) > 0
    assert session.failures  # which is what a bound model refuses: the reason for thinking_bound


def layer_rewrites(engine: ContextEngine) -> int:
    return sum(stat.count for name, stat in engine.stats.items() if name not in ("truncate", "compact"))


def test_the_same_generator_unbound_goes_through_the_client_side_layers():
    def rewrites_unbound(example: tuple[list[tuple], dict]) -> bool:
        steps, setup = example
        session = Session(False, **setup)
        session.run(steps)
        return layer_rewrites(session.engine) > 0

    steps, setup = find(st.tuples(st.lists(step, min_size=1, max_size=30), config), rewrites_unbound,
                        settings=settings(max_examples=500, database=None, phases=[Phase.generate],
                                          suppress_health_check=list(HealthCheck)))
    bound = Session(True, **setup)
    bound.run(steps)
    assert bound.failures == []
