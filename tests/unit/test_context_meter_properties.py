"""Property (issue 9): every compaction strictly shrinks, and the meter tells one story.

Over random histories (user texts, @-attachments, tool rounds with re-read files,
cleared and budgeted results, idle gaps, automatic and manual compactions, a real
tokenizer that counts more or fewer tokens than chars/4), at every step:
- every compaction that changes the history has tokensAfter < tokensBefore, both
  as the meter showed them; one with nothing to gain changes nothing;
- agent/contextUsage and agent/context give the same used, window, usable window,
  utilization, level and next-request outlook;
- the percentage the editor shows equals the fraction beside it (used over the
  usable window) within one point, and is over 100% only when the next request
  is really over: then the outlook says what will happen.
"""

import os
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import test_context_properties as base
from agentls.agent.loop import Agent
from agentls.agent.workspace import Workspace
from agentls.context.compact import SummaryError
from agentls.context.tokens import Usage
from agentls.model import ModelSettings
from agentls.agent.runtime import ActiveModel
from agentls.lsp import protocol

NO_MODEL = ActiveModel("", False)

EXAMPLES = int(os.environ.get("AGENTLS_METER_EXAMPLES", "2000"))
SHARED = ("used", "window", "effectiveWindow", "utilization", "level", "nextRequest")
_ROOT = tempfile.mkdtemp(prefix="agentls-meter-")

attach = st.tuples(st.just("attach"), st.integers(0, 6_000))
ops = st.lists(st.one_of(base.op, attach), min_size=1, max_size=30)


class MeterDriver(base.Driver):
    def __init__(self, window: int, ratio: float) -> None:
        super().__init__(window)
        self.ratio = ratio  # real tokens per estimated token
        self.agent = Agent(Workspace([_ROOT]), ModelSettings(api_key="unused"))
        self.agent.engine = self.engine
        self.compactions = 0

    def check_meter(self) -> None:
        usage = protocol.context_usage(self.agent.context_usage(), NO_MODEL)
        context = protocol.context(self.agent.context(), NO_MODEL)
        assert {k: usage[k] for k in SHARED} == {k: context[k] for k in SHARED}
        used, usable = usage["used"], usage["effectiveWindow"]
        assert usable == usage["window"] - self.engine.config.reserve
        fraction = used / usable
        assert usage["utilization"] == round(fraction, 4)
        assert abs(round(usage["utilization"] * 100) - round(fraction * 100)) <= 1
        if used > usable:
            assert usage["utilization"] > 1 and usage["nextRequest"] != "none"

    def compact(self, manual: bool, ok: bool) -> None:
        request = self.engine.summary_request("keep it short" if manual else None, manual=manual)
        if request is None:
            return
        before, messages = self.engine.estimate(), list(self.engine.history.messages)
        try:
            outcome = self.engine.apply_summary(request, self.summarize(ok), "manual" if manual else "auto")
        except SummaryError:
            assert self.engine.history.messages == messages and self.engine.estimate() == before
            return
        assert outcome.tokens_before == before
        assert outcome.tokens_after < outcome.tokens_before
        assert self.engine.estimate() == outcome.tokens_after
        self.compactions += 1
        self.previous = None
        self.check_meter()

    def call_model(self, summary_ok: bool) -> None:
        self.check_meter()
        super().call_model(summary_ok)
        self.check_meter()

    def record(self, prepared_estimate: int) -> None:
        real = int(self.engine.raw_estimate * self.ratio)  # what a real tokenizer would have counted
        self.engine.record_usage(Usage(input_tokens=5, cache_read_input_tokens=real), self.clock)

    def user_message(self, arg) -> dict:
        if isinstance(arg, tuple):  # an @-mention: the file's text rides in the user message
            return {"role": "user", "content": [
                {"type": "text", "text": f"Attached file:///w/f{arg[1] % 4}.py:\n```\n{'x' * arg[1]}\n```"},
                {"type": "text", "text": f"look at @f{arg[1] % 4}.py"}]}
        return super().user_message(arg)

    def run(self, operations) -> None:
        super().run([("user", (kind, arg)) if kind == "attach" else (kind, arg) for kind, arg in operations])
        self.check_meter()


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(operations=ops, window=st.sampled_from([6_000, 20_000, 200_000]),
       ratio=st.sampled_from([0.6, 0.8, 1.0, 1.25]))
def test_every_compaction_shrinks_and_the_meter_agrees_everywhere(operations, window, ratio):
    MeterDriver(window, ratio).run(operations)
