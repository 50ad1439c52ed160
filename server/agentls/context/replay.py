"""Replay recorded conversations through a policy and price every request.

Pricing model: an ideal prefix cache against the previous request, at
message granularity: the shared prefix is read from the cache (0.1x), the
rest is written (1.25x); tokens = chars / 4; a fixed system prompt of 3,000
tokens in every request. A summary call is a request too (priced against
the previous one) plus 2,000 output tokens at 5x. Every request can be
written to a ledger so the figures can be re-priced independently.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from typing import IO, Any, Callable

from .blocks import Message, blocks_of, message_chars, message_sha1, result_text, tool_result_ids, tool_use_ids
from .anthropic_editing import AnthropicEditing
from .config import ContextConfig
from .pipeline import ContextEngine, NothingToGain
from .seed import SeedPolicy
from .store import MemoryStore
from .tokens import Usage

SYSTEM_TOKENS = 3_000
SUMMARY_OUTPUT_TOKENS = 2_000
READ, WRITE, OUTPUT = 0.1, 1.25, 5.0
RECALL_RESULTS = 10
POLICIES = ("default", "seed", "anthropic", "none")
ALWAYS_FITS = ("default",)  # policies for which a request over the window is a bug


def standin_summary(messages: list[Message]) -> str:
    """A deterministic 2,000-token summary (8,000 chars) for the replay."""
    uses = [i for m in messages for i in tool_use_ids(m)]
    head = f"<analysis>{len(messages)} messages, {len(uses)} tool calls</analysis>\n<summary>\n"
    line = f"Replay summary of {len(messages)} messages; tool calls {', '.join(uses[-5:])}. "
    body = (line * (8_000 // len(line) + 1))[:8_000 - len(head) - 11]
    return head + body + "\n</summary>"


@dataclass
class TraceResult:
    trace: str
    requests: int = 0
    input_tokens: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    output_tokens: float = 0.0
    cost: float = 0.0
    peak_tokens: int = 0
    over_window: int = 0
    compactions: int = 0
    recall: float = 0.0
    pipeline_ms_total: float = 0.0
    pipeline_ms_max: float = 0.0
    invalid_requests: int = 0
    _recall_sum: float = field(default=0.0, repr=False)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("_recall_sum")
        return data


class Pricer:
    """Prices each request against the previous one and writes the ledger."""

    def __init__(self, trace: str, result: TraceResult, ledger: IO[str] | None) -> None:
        self.trace, self.result, self.ledger = trace, result, ledger
        self.previous: list[str] | None = None
        self._memo: dict[int, tuple[Message, str, int]] = {}
        self.count = 0

    def _facts(self, message: Message) -> tuple[str, int]:
        hit = self._memo.get(id(message))
        if hit is None or hit[0] is not message:
            hit = (message, message_sha1(message), message_chars(message))
            self._memo[id(message)] = hit
        return hit[1], hit[2]

    def price(self, messages: list[Message], compacted: bool, summary: bool = False) -> int:
        facts = [self._facts(m) for m in messages]
        shas = [sha for sha, _ in facts]
        shared = 0
        if self.previous is not None:
            for a, b in zip(self.previous, shas):
                if a != b:
                    break
                shared += 1
        tokens = [chars / 4 for _, chars in facts]
        read = sum(tokens[:shared]) + (SYSTEM_TOKENS if self.previous is not None else 0)
        write = sum(tokens[shared:]) + (0 if self.previous is not None else SYSTEM_TOKENS)
        output = SUMMARY_OUTPUT_TOKENS if summary else 0
        r = self.result
        r.requests += 1
        r.input_tokens += read + write
        r.cache_read += read
        r.cache_write += write
        r.output_tokens += output
        r.cost += READ * read + WRITE * write + OUTPUT * output
        total = int(read + write)
        r.peak_tokens = max(r.peak_tokens, total)
        if self.ledger is not None:
            line = {
                "trace": self.trace, "request": self.count, "system_chars": SYSTEM_TOKENS * 4,
                "compacted": compacted, "summary": summary,
                "messages": [
                    {"role": m["role"], "sha1": sha, "chars": chars,
                     "tool_use_ids": tool_use_ids(m), "tool_result_ids": tool_result_ids(m)}
                    for m, (sha, chars) in zip(messages, facts)
                ],
            }
            self.ledger.write(json.dumps(line) + "\n")
        self.count += 1
        self.previous = shas
        return total


def _verbatim_chars(sent: str, original: str) -> int:
    if sent == original:
        return len(original)
    prefix = len(os.path.commonprefix([sent, original]))
    suffix = len(os.path.commonprefix([sent[::-1], original[::-1]]))
    return min(len(original), prefix + suffix)


def recall_of(messages: list[Message], recent: list[tuple[str, str]]) -> float:
    """Fraction of the chars of the recent results (as after L0) the request carries verbatim."""
    if not recent:
        return 1.0
    wanted = {tool_use_id: text for tool_use_id, text in recent}
    found: dict[str, str] = {}
    for message in reversed(messages):
        if message["role"] != "user" or isinstance(message.get("content"), str):
            continue
        for block in blocks_of(message):
            if block.get("type") == "tool_result" and block.get("tool_use_id") in wanted:
                found[block["tool_use_id"]] = result_text(block)
        if len(found) == len(wanted):
            break
    total = sum(len(t) for t in wanted.values())
    if total == 0:
        return 1.0
    kept = sum(_verbatim_chars(found[i], t) for i, t in wanted.items() if i in found)
    return kept / total


def _l0(text: str) -> str:
    if len(text) <= 50_000:
        return text
    keep = 25_000
    return text[:keep] + text[-keep:]  # only the verbatim parts matter for recall


class _Runner:
    """The three policies behind one small interface."""

    def __init__(self, policy: str, window: int, config: ContextConfig | None = None) -> None:
        self.policy = policy
        if policy == "default":
            config = (config or ContextConfig()).updated(window=window, system_tokens=SYSTEM_TOKENS)
            self.engine = ContextEngine(config=config, store=MemoryStore())
        elif policy == "seed":
            self.seed = SeedPolicy(window, SYSTEM_TOKENS)
        elif policy == "anthropic":
            self.seed = AnthropicEditing(window, SYSTEM_TOKENS)  # same interface as the seed
        self.messages: list[Message] = []

    def append(self, message: Message) -> None:
        if self.policy == "default":
            self.engine.append(message)
        elif self.policy in ("seed", "anthropic"):
            self.seed.append(message)
        else:
            self.messages.append(message)

    def prepare(self, now: float) -> tuple[list[Message], list[list[Message]]]:
        if self.policy in ("seed", "anthropic"):
            return self.seed.prepare(standin_summary)
        if self.policy == "none":
            return list(self.messages), []
        prepared = self.engine.prepare(now)
        summaries = []
        if prepared.compaction_due:
            request = self.engine.summary_request()
            if request is not None:
                summaries.append(request.messages)
                try:
                    self.engine.apply_summary(request, standin_summary(request.messages))
                except NothingToGain:
                    pass  # counted as a failed summary; the layers go on
            prepared = self.engine.prepare(now, allow_compaction=False)
        return prepared.messages, summaries

    def after_call(self, prompt_tokens: int, now: float) -> None:
        if self.policy in ("seed", "anthropic"):
            self.seed.after_call(prompt_tokens)
        elif self.policy == "default":
            self.engine.record_usage(Usage(cache_read_input_tokens=prompt_tokens), now)


def replay_trace(trace_id: str, messages: list[Message], policy: str, window: int,
                 ledger: IO[str] | None = None,
                 check: Callable[[list[Message]], list[str]] | None = None,
                 config: ContextConfig | None = None) -> TraceResult:
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")
    result = TraceResult(trace_id)
    pricer = Pricer(trace_id, result, ledger)
    runner = _Runner(policy, window, config)
    recent: list[tuple[str, str]] = []
    for index, message in enumerate(messages):
        runner.append(message)
        if message["role"] == "user":
            recent.extend((b["tool_use_id"], _l0(result_text(b))) for b in blocks_of(message)
                          if b.get("type") == "tool_result")
            recent = recent[-RECALL_RESULTS:]
        following = messages[index + 1] if index + 1 < len(messages) else None
        if message["role"] != "user" or following is None or following["role"] != "assistant":
            continue
        now = index * 10.0  # recorded traces carry no clock: no idle gaps
        started = time.perf_counter()
        request, summaries = runner.prepare(now)
        elapsed = (time.perf_counter() - started) * 1000
        result.pipeline_ms_total += elapsed
        result.pipeline_ms_max = max(result.pipeline_ms_max, elapsed)
        for summary_request in summaries:
            pricer.price(summary_request, compacted=False, summary=True)
            result.compactions += 1
        tokens = pricer.price(request, compacted=bool(summaries))
        if tokens > window:
            result.over_window += 1
            if policy in ALWAYS_FITS:  # an invariant, not a statistic
                raise AssertionError(f"{trace_id}: request {result.requests} of {policy} is {tokens:,} "
                                     f"tokens, over the {window:,} window")
        if check is not None and check(request):
            result.invalid_requests += 1
        result._recall_sum += recall_of(request, recent)
        runner.after_call(tokens, now)
    real_requests = result.requests - result.compactions
    result.recall = result._recall_sum / real_requests if real_requests else 1.0
    return result


def total_of(results: list[TraceResult]) -> TraceResult:
    total = TraceResult("TOTAL")
    for r in results:
        for name in ("requests", "input_tokens", "cache_read", "cache_write", "output_tokens", "cost",
                     "over_window", "compactions", "pipeline_ms_total", "invalid_requests"):
            setattr(total, name, getattr(total, name) + getattr(r, name))
        total.peak_tokens = max(total.peak_tokens, r.peak_tokens)
        total.pipeline_ms_max = max(total.pipeline_ms_max, r.pipeline_ms_max)
        total._recall_sum += r.recall * (r.requests - r.compactions)
    real = total.requests - total.compactions
    total.recall = total._recall_sum / real if real else 1.0
    return total


def load_trace(path: str) -> tuple[str, list[Message]]:
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise ValueError(f"{path}: expected a JSON object with a 'messages' list")
    return str(data.get("id") or os.path.basename(path)), data["messages"]


def format_table(results: list[TraceResult], policy: str, window: int) -> str:
    head = (f"policy={policy} window={window:,}\n"
            f"{'trace':44} {'req':>4} {'input':>10} {'read':>10} {'write':>9} {'cost':>10} "
            f"{'peak':>7} {'over':>4} {'cmp':>3} {'recall':>6} {'ms tot':>7} {'ms max':>6}")
    rows = [head]
    for r in results:
        rows.append(f"{r.trace[:44]:44} {r.requests:>4} {r.input_tokens:>10,.0f} {r.cache_read:>10,.0f} "
                    f"{r.cache_write:>9,.0f} {r.cost:>10,.0f} {r.peak_tokens:>7,} {r.over_window:>4} "
                    f"{r.compactions:>3} {r.recall:>6.3f} {r.pipeline_ms_total:>7.1f} {r.pipeline_ms_max:>6.2f}")
    return "\n".join(rows)
