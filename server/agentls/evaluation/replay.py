"""Replay recorded conversations through a policy and price every request.

Pricing model (``cache``): ``anthropic`` (default) bills each request as the
API does (context/prompt_cache.py: breakpoints, the 20-block lookback, the
minimum cacheable length, TTLs), with the breakpoints the model client would
place (``breakpoints``: ``frontier`` or today's ``legacy``); ``ideal`` reads
whatever prefix a request shares with the previous one. Reads cost 0.1x,
5-minute writes 1.25x, 1-hour writes 2x, plain input 1x; tokens = chars / 4 unrounded
per block; a fixed system prompt of 3,000 tokens (with its breakpoint) in
every request; the clock advances 10 s per recorded message. A summary call
is a request too plus 2,000 output tokens at 5x; each recorded reply is billed
as output at 5x (the same under every policy, but part of what a session costs).
The engine is told the TTL each request gave its stable breakpoints, as the
model client tells it (how long a pause leaves the prefix cached: microcompact). Every request can be
written to a ledger (blocks, breakpoints, clock) so the figures can be
re-priced independently.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from typing import IO, Any
from collections.abc import Callable, Sequence

import hashlib

from ..context.blocks import (Message, blocks_of, canonical_json, message_chars, message_sha1,
                              tool_result_ids, tool_use_ids)
from ..context.config import ContextConfig
from ..context.pipeline import ContextEngine, NothingToGain, Prepared
from ..context.prompt_cache import (DEFAULT_MINIMUM_TOKENS, FIVE_MINUTES, LOOKBACK_BLOCKS, Block, CacheUsage,
                                    can_carry_breakpoint, message_breakpoints, new_cache, stable_ttl)
from ..context.store import MemoryStore
from ..context.tokens import CHARS_PER_TOKEN, Usage
from .anthropic_editing import AnthropicEditing
from .billing import block_tokens
from .trace_file import load_trace  # noqa: F401 (still importable from here, as before trace_file.py)
from .reference_recall import ReferenceScore, ReferenceTracker
from .seed_policy import SeedPolicy

SYSTEM_TOKENS = 3_000
SUMMARY_OUTPUT_TOKENS = 2_000
OUTPUT = 5.0
REREAD_PRICE = 1.25  # a re-read result is new input, written to the cache at the 5-minute write price
POLICIES = ("default", "seed", "anthropic", "none", "append-only")
Frontiers = tuple[int | None, int | None, int | None]  # for a summary; of the request and the previous one
ALWAYS_FITS = ("default",)
HELD = ("seed", "anthropic", "append-only")  # policies that hold the history themselves (one interface)


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
    cache_write_1h: float = 0.0
    output_tokens: float = 0.0
    cost: float = 0.0
    peak_tokens: int = 0
    over_window: int = 0
    compactions: int = 0
    recall: float = 0.0  # reference recall (reference_recall.py): later references still carried
    references: int = 0
    references_kept: int = 0
    reread_tokens: float = 0.0  # what re-reading every missing reference adds to the prompts
    pipeline_ms_total: float = 0.0
    pipeline_ms_max: float = 0.0
    invalid_requests: int = 0
    microcompacted: int = 0  # results the engine cleared because the whole cache had expired (idle)

    @property
    def reread_cost(self) -> float:
        """Re-reading every missing reference, in replay units: new input written to the cache."""
        return self.reread_tokens * REREAD_PRICE

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "reread_cost": self.reread_cost}

    def add_references(self, score: ReferenceScore) -> None:
        self.references += score.references
        self.references_kept += score.kept
        self.reread_tokens += score.reread_tokens


@dataclass(frozen=True)
class _MessageFacts:
    sha: str
    chars: int
    blocks: tuple[Block, ...]  # unmarked
    hashes: tuple[str, ...]  # sha1 of each block (first 16 hex digits), for the ledger
    mark: int | None  # the block a breakpoint on this message goes to


def _facts_of(message: Message) -> _MessageFacts:
    blocks = blocks_of(message)
    hashes = tuple(hashlib.sha1(canonical_json({"role": message["role"], **b}).encode()).hexdigest()[:16]
                   for b in blocks)
    cached = tuple(Block(h, block_tokens(b)) for h, b in zip(hashes, blocks))
    mark = next((j for j in range(len(blocks) - 1, -1, -1) if can_carry_breakpoint(blocks[j])), None)
    return _MessageFacts(message_sha1(message), message_chars(message), cached, hashes, mark)


class Pricer:
    """Prices each request with one cache model and writes the ledger."""

    def __init__(self, trace: str, result: TraceResult, ledger: IO[str] | None, cache: str = "anthropic",
                 breakpoints: str = "frontier", minimum_tokens: int = DEFAULT_MINIMUM_TOKENS,
                 ttl: str = "auto") -> None:
        self.trace, self.result, self.ledger = trace, result, ledger
        self.cache_name, self.placement, self.minimum_tokens = cache, breakpoints, minimum_tokens
        self.cache = new_cache(cache, minimum_tokens)
        self.ttl_setting = ttl  # of the head and frontier breakpoints, chosen like the model client does
        self.gaps: list[float] = []
        self._last_at: float | None = None
        self._memo: dict[int, tuple[Message, _MessageFacts]] = {}
        self.count = 0
        self.last_usage = CacheUsage()  # of the last request priced (what --model prices in dollars)
        self.last_ttl = FIVE_MINUTES  # the TTL the last request gave its head and frontier breakpoints

    def _facts(self, message: Message) -> _MessageFacts:
        hit = self._memo.get(id(message))
        if hit is None or hit[0] is not message:
            hit = (message, _facts_of(message))
            self._memo[id(message)] = hit
        return hit[1]

    def price(self, messages: list[Message], compacted: bool, summary: bool = False,
              frontier: int | None = None, now: float = 0.0, previous_frontier: int | None = None) -> int:
        facts = [self._facts(m) for m in messages]
        marks = message_breakpoints(messages, frontier, self.placement, previous_frontier)
        marked = {i: mark for i in marks if (mark := facts[i].mark) is not None}
        stable = stable_ttl(self.gaps, self.ttl_setting)
        self.last_ttl = stable
        stable_upto = frontier if self.placement == "frontier" and frontier is not None else -1
        ttls = {i: stable if i <= stable_upto else FIVE_MINUTES for i in marked}
        blocks = [Block("system", SYSTEM_TOKENS, stable)]
        for index, fact in enumerate(facts):
            if index in marked:
                chosen = marked[index]
                blocks.extend(Block(b.key, b.tokens, ttls[index]) if j == chosen else b
                              for j, b in enumerate(fact.blocks))
            else:
                blocks.extend(fact.blocks)
        usage = self.cache.request(blocks, now)
        self.last_usage = usage
        if self._last_at is not None:
            self.gaps.append(now - self._last_at)
        self._last_at = now
        output = SUMMARY_OUTPUT_TOKENS if summary else 0
        r = self.result
        r.requests += 1
        r.input_tokens += usage.total
        r.cache_read += usage.read
        r.cache_write += usage.write
        r.cache_write_1h += usage.write_1h
        r.output_tokens += output
        r.cost += usage.cost() + OUTPUT * output
        total = int(usage.total)
        r.peak_tokens = max(r.peak_tokens, total)
        if self.ledger is not None:
            self._write_ledger(messages, facts, marked, ttls, stable, compacted, summary, now)
        self.count += 1
        return total

    def price_output(self, tokens: float) -> None:
        """The model's own reply: output tokens at the output price."""
        self.result.output_tokens += tokens
        self.result.cost += OUTPUT * tokens

    def _write_ledger(self, messages: list[Message], facts: list[_MessageFacts], marked: dict[int, int],
                      ttls: dict[int, str], system_ttl: str, compacted: bool, summary: bool, now: float) -> None:
        assert self.ledger is not None  # called only when a ledger is kept (see price)
        line = {
            "trace": self.trace, "request": self.count, "now": now, "cache": self.cache_name,
            "minimum_tokens": self.minimum_tokens, "lookback_blocks": LOOKBACK_BLOCKS,
            "system_chars": SYSTEM_TOKENS * CHARS_PER_TOKEN, "system_ttl": system_ttl,
            "breakpoints": [{"message": i, "block": j, "ttl": ttls[i]} for i, j in sorted(marked.items())],
            "compacted": compacted, "summary": summary,
            "messages": [
                {"role": m["role"], "sha1": f.sha, "chars": f.chars,
                 "blocks": [[h, int(b.tokens * CHARS_PER_TOKEN)] for h, b in zip(f.hashes, f.blocks)],
                 "tool_use_ids": tool_use_ids(m), "tool_result_ids": tool_result_ids(m)}
                for m, f in zip(messages, facts)
            ],
        }
        self.ledger.write(json.dumps(line) + "\n")


class PolicyRunner:
    """The policies of ``--policy`` behind one small interface."""

    def __init__(self, policy: str, window: int, config: ContextConfig | None = None) -> None:
        self.policy = policy
        if policy == "default":
            config = (config or ContextConfig()).updated(window=window, system_tokens=SYSTEM_TOKENS)
            self.engine = ContextEngine(config=config, store=MemoryStore())
        elif policy == "seed":
            self.seed: SeedPolicy | AnthropicEditing = SeedPolicy(window, SYSTEM_TOKENS)
        elif policy == "anthropic":
            self.seed = AnthropicEditing(window, SYSTEM_TOKENS)  # same interface as the seed
        elif policy == "append-only":  # the whole history, one summary at the compaction threshold
            self.seed = AnthropicEditing(window, SYSTEM_TOKENS, clearing=False)
        self.messages: list[Message] = []
        self.prepared: Prepared | None = None  # the engine's last request (default policy)

    def append(self, message: Message) -> None:
        if self.policy == "default":
            self.engine.append(message)
        elif self.policy in HELD:
            self.seed.append(message)
        else:
            self.messages.append(message)

    def prepare(self, now: float) -> tuple[list[Message], list[list[Message]], Frontiers]:
        """The request, the summary requests made first, and the stable frontiers
        (for a summary; of the request and the previous one: default policy only)."""
        if self.policy in HELD:
            return (*self.seed.prepare(standin_summary), (None, None, None))
        if self.policy == "none":
            return list(self.messages), [], (None, None, None)
        prepared = self.engine.prepare(now)
        frontier = prepared.cached_frontier
        summaries = []
        # ContextEngine.apply_server_compaction comes with the engine's server compaction (issue 29, engine
        # branch): where the model compacts on the server, the agent asks it to and hands the block back
        server_compaction = (getattr(self.engine, "apply_server_compaction", None)
                             if self.engine.config.server_compaction else None)
        cut = self.engine.compaction_cut() if prepared.compaction_due and server_compaction is not None else None
        if cut is not None and server_compaction is not None:
            # as the agent does (agent/turn/compaction.py): the turns before the engine's cut are compacted,
            # the verbatim tail from the cut is kept
            compacted = prepared.messages[:cut]
            summaries.append(compacted)
            try:
                server_compaction({"type": "compaction", "content": standin_summary(compacted)}, "auto", upto=cut)
            except NothingToGain:
                pass
            prepared = self.engine.prepare(now, allow_compaction=False)
        elif prepared.compaction_due:
            request = self.engine.summary_request()
            if request is not None:
                summaries.append(request.messages)
                try:
                    self.engine.apply_summary(request, standin_summary(request.messages))
                except NothingToGain:
                    pass  # counted as a failed summary; the layers go on
            prepared = self.engine.prepare(now, allow_compaction=False)
        self.prepared = prepared
        return prepared.messages, summaries, (frontier, prepared.frontier, prepared.previous_frontier)

    def after_call(self, prompt_tokens: int, now: float, cache_ttl: str = FIVE_MINUTES,
                   output_tokens: float = 0.0) -> None:
        """``cache_ttl``: what the request gave its stable breakpoints (the engine's idle gap follows it);
        ``output_tokens``: the reply's, as the replay bills them."""
        if self.policy in HELD:
            self.seed.after_call(prompt_tokens)
        elif self.policy == "default":
            usage = Usage(cache_read_input_tokens=prompt_tokens, output_tokens=round(output_tokens))
            self.engine.record_usage(usage, now, cache_ttl=cache_ttl)


def replay_trace(trace_id: str, messages: list[Message], policy: str, window: int,
                 ledger: IO[str] | None = None,
                 check: Callable[[list[Message]], list[str]] | None = None,
                 config: ContextConfig | None = None, cache: str = "anthropic",
                 breakpoints: str = "frontier", ttl: str = "auto",
                 pauses: tuple[int, float] = (0, 0.0)) -> TraceResult:
    """``pauses``: (every how many calls, how many seconds): the user pauses before those calls."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")
    result = TraceResult(trace_id)
    pricer = Pricer(trace_id, result, ledger, cache, breakpoints, ttl=ttl)
    pause_every, pause_seconds = pauses
    paused, calls = 0.0, 0
    runner = PolicyRunner(policy, window, config or ContextConfig(cache_model=cache))  # decisions priced like the bill
    references = ReferenceTracker()
    for index, message in enumerate(messages):
        runner.append(message)
        references.observe(message)
        if not is_call(messages, index):
            continue
        calls += 1
        if pause_every and calls % pause_every == 0:
            paused += pause_seconds
        now = index * 10.0 + paused  # recorded traces carry no clock: 10 s per message, plus the pauses
        started = time.perf_counter()
        request, summaries, (summary_frontier, frontier, previous_frontier) = runner.prepare(now)
        elapsed = (time.perf_counter() - started) * 1000
        result.pipeline_ms_total += elapsed
        result.pipeline_ms_max = max(result.pipeline_ms_max, elapsed)
        for summary_request in summaries:
            pricer.price(summary_request, compacted=False, summary=True, frontier=summary_frontier, now=now)
            result.compactions += 1
        tokens = pricer.price(request, compacted=bool(summaries), frontier=frontier, now=now,
                              previous_frontier=previous_frontier)
        if tokens > window:
            result.over_window += 1
            if policy in ALWAYS_FITS:  # an invariant, not a statistic
                raise AssertionError(f"{trace_id}: request {result.requests} of {policy} is {tokens:,} "
                                     f"tokens, over the {window:,} window")
        if check is not None and check(request):
            result.invalid_requests += 1
        result.add_references(references.score(request, messages[index + 1]))
        output = reply_tokens(messages[index + 1])
        pricer.price_output(output)
        runner.after_call(tokens, now, pricer.last_ttl, output)
    if policy == "default":
        result.microcompacted = runner.engine.stats["microcompact"].count
    return finished(result)


def reply_tokens(reply: Message) -> float:
    """The recorded reply's size in output tokens (chars / 4, as every block is counted here)."""
    return message_chars(reply) / CHARS_PER_TOKEN


def is_call(messages: list[Message], index: int) -> bool:
    """Whether a request is made after messages[index]: a user message the recorded reply follows."""
    following = messages[index + 1] if index + 1 < len(messages) else None
    return messages[index]["role"] == "user" and following is not None and following["role"] == "assistant"


def finished(result: TraceResult) -> TraceResult:
    """`result` with its reference recall: the share of the replies' references the requests still carried."""
    result.recall = result.references_kept / result.references if result.references else 1.0
    return result


def total_of(results: Sequence[TraceResult]) -> TraceResult:
    total = TraceResult("TOTAL")
    for r in results:
        for name in ("requests", "input_tokens", "cache_read", "cache_write", "cache_write_1h", "output_tokens", "cost",
                     "over_window", "compactions", "pipeline_ms_total", "invalid_requests", "microcompacted",
                     "references", "references_kept", "reread_tokens"):
            setattr(total, name, getattr(total, name) + getattr(r, name))
        total.peak_tokens = max(total.peak_tokens, r.peak_tokens)
        total.pipeline_ms_max = max(total.pipeline_ms_max, r.pipeline_ms_max)
    return finished(total)


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
