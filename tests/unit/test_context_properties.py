"""Property: whatever happens, every request is valid and nothing rewritten is lost.

Random sequences of user turns, tool rounds (several tools, duplicate paths,
huge results, large inputs, the assistant's reasoning and thinking before the calls, a page the API's
own tool fetched inside the reply, a harness's state block beside the results),
answers (some larger than the whole window), idle gaps, automatic and manual
compactions (some summaries failing), including compactions in the middle
of a tool loop. Every ref a placeholder names reads back, and what it reads
back is what was written.
"""

import os
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentls.context import ContextConfig, ContextEngine, MemoryStore
from agentls.context.blocks import result_text
from agentls.context.compact import SummaryError, is_generated
from agentls.context.store import input_ref, result_ref, text_ref
from agentls.context.structure import request_problems
from agentls.context.tokens import Usage

EXAMPLES = int(os.environ.get("AGENTLS_PROPERTY_EXAMPLES", "10000"))

TOOLS = ["read_file", "grep_search", "run_shell", "list_files", "edit_file", "write_file"]
SIZES = [0, 40, 700, 6_000, 20_000, 70_000]
PROSE = [0, 150, 2_000, 90_000]  # the last: longer than a small window
REF = re.compile(r'read_file path="(context://[^"]+)"')
PAGE = re.compile(r"page \d+: p*")

tool = st.tuples(st.sampled_from(TOOLS), st.integers(0, 3), st.sampled_from(SIZES), st.sampled_from([0, 30, 3_000]))
op = st.one_of(
    st.tuples(st.just("user"), st.integers(0, 400)),
    st.tuples(st.just("tools"), st.tuples(st.lists(tool, min_size=1, max_size=3), st.sampled_from(PROSE))),
    st.tuples(st.just("answer"), st.one_of(st.integers(0, 2_000), st.sampled_from(PROSE))),
    st.tuples(st.just("idle"), st.integers(1, 900)),
    st.tuples(st.just("compact"), st.booleans()),
)


class Driver:
    def __init__(self, window: int) -> None:
        config = ContextConfig(window=window, min_batch_tokens=500, idle_gap_seconds=300,
                               clear_keep_recent=4, compact_tail_fraction=0.3)
        self.engine = ContextEngine(config=config, store=MemoryStore())
        self.clock = 0.0
        self.originals: dict[str, str] = {}
        self.inputs: dict[str, dict] = {}
        self.previous: list | None = None
        self.counter = 0
        self.requests = 0
        self.written: list[str] = []  # every text the assistant or the user wrote
        self.pages: list[str] = []  # every page a server tool fetched inside a reply

    def summarize(self, ok: bool) -> str:
        return "<analysis>x</analysis><summary>goal; next step</summary>" if ok else "<analysis>x</analysis>"

    def compact(self, manual: bool, ok: bool) -> None:
        request = self.engine.summary_request("keep it short" if manual else None, manual=manual)
        if request is None:
            return
        assert request_problems(request.messages) == [], request_problems(request.messages)
        self.check_request(request.messages)
        try:
            self.engine.apply_summary(request, self.summarize(ok), "manual" if manual else "auto")
        except SummaryError:
            return
        self.previous = None  # a compaction is a deliberate rewrite

    def call_model(self, summary_ok: bool) -> None:
        prepared = self.engine.prepare(self.clock)
        rewrote = prepared.batch is not None
        if prepared.compaction_due:
            self.compact(manual=False, ok=summary_ok)
            prepared = self.engine.prepare(self.clock, allow_compaction=False)
            rewrote = rewrote or prepared.batch is not None
        problems = request_problems(prepared.messages)
        assert problems == [], problems
        self.check_request(prepared.messages)
        # every kind of block can be made to fit: an invariant, at every window
        assert prepared.estimate <= self.engine.config.effective_window, prepared.estimate
        if self.previous is not None and not rewrote:
            assert all(a is b for a, b in zip(self.previous, prepared.messages)), "not append-only"
            assert len(prepared.messages) >= len(self.previous)
        self.previous = prepared.messages
        self.requests += 1
        self.record(prepared.estimate)
        self.clock += 1

    def record(self, prepared_estimate: int) -> None:
        self.engine.record_usage(Usage(input_tokens=5, cache_read_input_tokens=prepared_estimate), self.clock)

    def user_message(self, arg) -> dict:
        return {"role": "user", "content": [{"type": "text", "text": "u" * (arg + 1)}]}

    def add_user(self, message: dict) -> None:
        self.engine.append(message)

    def check_request(self, messages: list) -> None:
        """More checks of every request sent (a summary request included), for subclasses."""

    def run(self, ops) -> None:
        engine = self.engine
        engine.append({"role": "user", "content": [{"type": "text", "text": "start"}]})
        for kind, arg in ops:
            last = engine.history.last_role
            if kind == "user" and last == "assistant" and not engine.history.open_tool_uses():
                message = self.user_message(arg)
                self.written += [b["text"] for b in message["content"] if b.get("type") == "text"]
                self.add_user(message)
            elif kind == "tools" and last == "user":
                calls, prose = arg
                self.call_model(summary_ok=len(calls) != 2)
                blocks, answers = [], []
                if prose:
                    blocks.append({"type": "text", "text": self.write(prose)})
                if prose == 2_000:  # thinking first, and a page the API's own web_fetch answered inside the reply
                    blocks.insert(0, {"type": "thinking", "thinking": self.write(600), "signature": "s"})
                    self.counter += 1
                    fetch_id, page = f"srvtoolu_{self.counter}", f"page {self.counter}: " + "p" * 3_000
                    self.pages.append(page)
                    blocks += [{"type": "server_tool_use", "id": fetch_id, "name": "web_fetch", "input": {"url": "u"}},
                               {"type": "web_fetch_tool_result", "tool_use_id": fetch_id, "content": {
                                   "type": "web_fetch_result", "url": "u", "content": {"type": "document", "source": {
                                       "type": "text", "media_type": "text/plain", "data": page}}}}]
                for name, path, size, input_size in calls:
                    self.counter += 1
                    tool_use_id = f"toolu_{self.counter}"
                    tool_input = {"path": f"f{path}.py"}
                    if input_size:
                        tool_input["content"] = "c" * input_size
                    blocks.append({"type": "tool_use", "id": tool_use_id, "name": name, "input": tool_input})
                    text = f"{tool_use_id}:" + "r" * size
                    self.originals[tool_use_id] = text
                    self.inputs[tool_use_id] = tool_input
                    answers.append({"type": "tool_result", "tool_use_id": tool_use_id, "content": text})
                if prose == 150:  # a harness's state block, restated every such turn (superseded.py)
                    state = "<environment_details>\n" + "\n".join(f"tab {n}" for n in range(40)) \
                        + f"\ntime {self.counter}\n</environment_details>"
                    self.written.append(state)
                    answers.append({"type": "text", "text": state})
                engine.append({"role": "assistant", "content": blocks})
                engine.append({"role": "user", "content": answers})
            elif kind == "answer" and last == "user":
                self.call_model(summary_ok=arg % 3 != 0)
                engine.append({"role": "assistant", "content": [{"type": "text", "text": self.write(arg + 1)}]})
            elif kind == "idle":
                self.clock += arg
            elif kind == "compact":
                self.compact(manual=True, ok=arg)
        if engine.history.last_role == "user":
            self.call_model(summary_ok=True)  # compaction mid tool loop included
        self.check_store()

    def write(self, chars: int) -> str:
        self.counter += 1
        text = f"thought {self.counter}: " + "a" * chars
        self.written.append(text)
        return text

    def check_refs(self) -> None:
        """Every ref named anywhere in the history reads back; an assistant text reads back whole."""
        store = self.engine.store
        pending = [ref for m in self.engine.history.messages for ref in REF.findall(str(m))]
        seen = set()
        while pending:
            ref = pending.pop()
            if ref in seen:
                continue
            seen.add(ref)
            text = store.get(ref)
            assert text is not None, ref
            pending += REF.findall(text)  # a cut text names the full one
            if ref.startswith("context://text-"):  # named by its content: what was stored is what was written
                assert text_ref(text) == ref
                assert self.from_history(text), ref
                for page in PAGE.findall(text):  # a cleared page is stored whole
                    assert page in self.pages

    def from_history(self, text: str) -> bool:
        """A stored text is a text written here (by the assistant or the user), or a cut of one, or one the
        engine wrote itself (a summary message's marked parts: the list of images it let go)."""
        head = text.split("\n\n[...")[0]
        return is_generated(text) or any(w in text or head in w for w in self.written)

    def check_store(self) -> None:
        self.check_refs()
        store = self.engine.store
        for record in self.engine.history.records.values():
            if record.state and record.result_msg is not None:
                assert store.get(result_ref(record.id)) == self.originals[record.id]
            if record.input_cleared:
                kept = store.get(input_ref(record.id))
                assert self.inputs[record.id]["content"] in kept
        for tool_use_id, original in self.originals.items():
            block = self.engine.history.result_block(tool_use_id)
            if block is not None and result_text(block) != original:
                assert store.get(result_ref(tool_use_id)) == original


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(ops=st.lists(op, min_size=1, max_size=30), window=st.sampled_from([6_000, 20_000, 200_000]))
def test_every_request_is_valid_and_every_placeholder_reads_back(ops, window):
    Driver(window).run(ops)
