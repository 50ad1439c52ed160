"""The hindsight oracle: issue 31's "honest lower bound", a policy that knows the future.

It keeps every result a later reply refers to (reference_recall.py), verbatim, until the last request that
needs it; everything else a reply never needs again (a result once answered and never named later, the
thinking of a reply once the next request has carried it) it may clear. Clearing rewrites the prompt from
the first cleared block on, so it pays the cache re-write there; the oracle chooses *when* to clear with
hindsight: the schedule of rewrites that minimises the whole session's input bill (a dynamic programme over
the requests, O(requests²) transitions), and it places its stable breakpoint where its next rewrite will
start, so every rewrite reads the prefix before it. It summarises nothing: where the kept content alone
would not fit the usable window, it clears the oldest results still referenced (the only recall it loses).

Unlike lower_bound.py this is a policy, not a proof: each request is a valid request (tool calls and their
results stay paired: a cleared result leaves a short marker) and is priced by the replay's own cache model,
like every other policy. A real policy cannot know which result a later reply will name, so it should pay
more than this; the ratio says how much of the gap is left to close.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..context.blocks import Message, block_chars, blocks_of, result_text
from ..context.config import ContextConfig
from ..context.placeholders import cut_middle
from ..context.tokens import CHARS_PER_TOKEN
from .lower_bound import Rates, result_cap_chars
from .reference_recall import ReferenceTracker
from .baselines import Turn
from .replay import is_call

HINDSIGHT = "hindsight"
CLEARED = "[cleared: no later reply needs this result]"
Item = tuple[str, str | int]  # ("result", tool_use id) or ("thinking", the assistant message's index)


@dataclass
class _Sizes:
    """Per message: its tokens as the oracle first sends it, and what clearing each of its items saves."""

    tokens: list[float] = field(default_factory=list)
    items: list[list[tuple[Item, float]]] = field(default_factory=list)

    def where(self) -> dict[Item, int]:
        """Each item -> the index of its message."""
        return {item: m for m, items in enumerate(self.items) for item, _ in items}

    def saving(self) -> dict[Item, float]:
        """Each item -> the tokens clearing it saves."""
        return {item: s for items in self.items for item, s in items}


def _sizes(messages: Sequence[Message], cap: int, added_thinking_chars: int) -> _Sizes:
    sizes = _Sizes()
    cleared_tokens = len(CLEARED) / CHARS_PER_TOKEN
    for index, message in enumerate(messages):
        total, items = 0.0, list[tuple[Item, float]]()
        thinking = added_thinking_chars / CHARS_PER_TOKEN if message["role"] == "assistant" else 0.0
        for block in blocks_of(message):
            tokens = min(block_chars(block), cap) / CHARS_PER_TOKEN
            total += tokens
            if block.get("type") == "tool_result":
                items.append((("result", str(block.get("tool_use_id", ""))), max(0.0, tokens - cleared_tokens)))
            elif block.get("type") in ("thinking", "redacted_thinking"):
                thinking += tokens
        if thinking:
            items.append((("thinking", index), thinking))
        sizes.tokens.append(total + added_thinking_chars / CHARS_PER_TOKEN * (message["role"] == "assistant"))
        sizes.items.append(items)
    return sizes


def _natural_deaths(messages: list[Message], calls: list[int]) -> dict[Item, int]:
    """Each item -> the last request (its message index) that must carry it verbatim."""
    deaths: dict[Item, int] = {}
    tracker = ReferenceTracker()
    pending: list[Item] = []
    for index, message in enumerate(messages):
        tracker.observe(message)
        pending += _items_in(message, index)  # a reply's thinking: the next request carries it (a tool loop needs it)
        if not is_call(messages, index):
            continue
        for item in pending:
            deaths[item] = index
        pending = []
        for source in tracker.referenced(messages[index + 1]):
            if ("result", source) in deaths:
                deaths[("result", source)] = index
    for item in pending:  # after the last request: never carried again
        deaths[item] = calls[-1] if calls else 0
    return deaths


@dataclass(frozen=True)
class Plan:
    """When the oracle rewrites, and what it clears by then."""

    calls: tuple[int, ...]  # the requests, by the index of the message they answer
    rewrites: tuple[int, ...]  # the requests at which the prompt is rewritten (the first request is one)
    deaths: dict[Item, int]  # an item is cleared from every request after its death
    starts: dict[int, int]  # rewrite request -> the first message it changes


def _deaths_within(messages: list[Message], calls: list[int], sizes: _Sizes, where: dict[Item, int],
                   saving: dict[Item, float], room: float) -> dict[Item, int]:
    """The natural deaths, moved sooner for the oldest referenced results where the kept messages would not
    fit `room` (clearing every dead item at every request)."""
    deaths = {item: death for item, death in _natural_deaths(messages, calls).items() if item in where}
    kept = 0.0
    cursor, by_death = 0, sorted(deaths, key=lambda it: (deaths[it], where.get(it, 0)))
    alive: dict[Item, None] = {}  # in arrival order
    for previous, call in zip([-1, *calls], calls):
        kept += sum(sizes.tokens[previous + 1:call + 1])
        for item, _ in (pair for m in range(previous + 1, call + 1) for pair in sizes.items[m]):
            alive[item] = None
        while cursor < len(by_death) and deaths[by_death[cursor]] < call:
            if alive.pop(by_death[cursor], 0) is None:
                kept -= saving.get(by_death[cursor], 0.0)
            cursor += 1
        if kept > room:  # the oldest still needed go first (the window forces it)
            for item in [it for it in alive if where.get(it, call) <= previous and deaths[it] >= call]:
                if kept <= room:
                    break
                deaths[item] = previous
                kept -= saving.get(item, 0.0)
                del alive[item]
    return deaths


def plan(messages: Sequence[Message], window: int, rates: Rates, system_tokens: int,
         added_thinking_chars: int = 0) -> Plan:
    """The cheapest schedule of rewrites for this recording, with hindsight (billed as lower_bound.py bills:
    each request reads what the one before it sent, up to its first change, and writes the rest)."""
    messages = list(messages)
    calls = [i for i in range(len(messages)) if is_call(messages, i)]
    if not calls:
        return Plan((), (), {}, {})
    sizes = _sizes(messages, result_cap_chars(window), added_thinking_chars)
    where, saving = sizes.where(), sizes.saving()
    room = ContextConfig(window=window).effective_window - system_tokens  # for the messages
    deaths = _deaths_within(messages, calls, sizes, where, saving, room)
    raw_upto = [0.0]
    for tokens in sizes.tokens:
        raw_upto.append(raw_upto[-1] + tokens)
    dying_at: dict[int, list[Item]] = {}
    for item, death in deaths.items():
        dying_at.setdefault(death, []).append(item)
    cleared_by = sorted(deaths.items(), key=lambda pair: pair[1])
    cleared_view, acc, cursor = [], 0.0, 0  # each request's size when everything dead by then is cleared
    for call in calls:
        while cursor < len(cleared_by) and cleared_by[cursor][1] < call:
            acc += saving.get(cleared_by[cursor][0], 0.0)
            cursor += 1
        cleared_view.append(raw_upto[call + 1] - acc)

    def prefix_of(call: int) -> list[float]:
        """Tokens of messages[:p] for every p, with everything dead before `call` cleared."""
        cleared = [0.0] * len(messages)
        for item, death in deaths.items():
            if death < call:
                cleared[where[item]] += saving[item]
        out, gone = [0.0], 0.0
        for m in range(len(messages)):
            gone += cleared[m]
            out.append(raw_upto[m + 1] - gone)
        return out

    n, inf = len(calls), float("inf")
    system = system_tokens * rates.read
    best, came_from, start_of, finish = [inf] * n, [-1] * n, [0] * n, [inf] * n
    best[0] = (system_tokens + raw_upto[calls[0] + 1]) * rates.write  # the first request writes everything
    for j in range(n):
        if best[j] == inf:
            continue
        prefix = prefix_of(calls[j])
        cost, first_change, fits = best[j], len(messages), True
        for k in range(j + 1, n):
            for death in range(calls[k - 1], calls[k]):
                for item in dying_at.get(death, ()):
                    first_change = min(first_change, where[item])
            if first_change < len(messages):  # rewriting at calls[k] reads up to its first change
                read = prefix[first_change]
                candidate = cost + system + read * rates.read + max(0.0, cleared_view[k] - read) * rates.write
                if candidate < best[k]:
                    best[k], came_from[k], start_of[k] = candidate, j, first_change
            before, size = prefix[calls[k - 1] + 1], prefix[calls[k] + 1]
            if size > max(room, cleared_view[k]):  # appending would not fit where a rewrite would
                fits = False
                break
            cost += system + before * rates.read + (size - before) * rates.write
        if fits:
            finish[j] = cost
    last = min(range(n), key=lambda j: finish[j])
    if finish[last] == inf:  # nothing fits without a rewrite that clears nothing: keep the best reached
        last = max(j for j in range(n) if best[j] < inf)
    rewrites, starts = [], {}
    while last > 0:
        rewrites.append(calls[last])
        starts[calls[last]] = start_of[last]
        last = came_from[last]
    return Plan(tuple(calls), (calls[0], *sorted(rewrites)), deaths, starts)


class HindsightBaseline:
    """The oracle behind the replay's policy interface (baselines.py): the plan made from the whole
    recording, each request rendered from the messages as they arrived (thinking_replay signs them)."""

    def __init__(self, recording: Sequence[Message], window: int, rates: Rates, system_tokens: int,
                 added_thinking_chars: int = 0) -> None:
        self.plan = plan(recording, window, rates, system_tokens, added_thinking_chars)
        self.cap = result_cap_chars(window)
        self.messages: list[Message] = []
        self._sent: dict[int, tuple[frozenset[Item], Message]] = {}  # message -> (cleared in it, as sent)
        self._last: tuple[int, list[Message]] = (-1, [])  # the rewrite the last request followed, and it

    def append(self, message: Message) -> None:
        self.messages.append(message)

    def _rendered(self, index: int, rewrite: int) -> Message:
        message = self.messages[index]
        deaths = self.plan.deaths
        gone = frozenset(item for item in _items_in(message, index) if deaths.get(item, rewrite) < rewrite)
        hit = self._sent.get(index)
        if hit is not None and hit[0] == gone:
            return hit[1]  # the same object: the cache model sees the same block
        blocks = []
        for block in blocks_of(message):
            kind = block.get("type")
            if kind in ("thinking", "redacted_thinking") and ("thinking", index) in gone:
                continue
            if kind == "tool_result":
                ident = str(block.get("tool_use_id", ""))
                text = CLEARED if ("result", ident) in gone else result_text(block)
                if len(text) > self.cap:
                    text = cut_middle(text, self.cap, ident, "result")
                block = {**block, "content": text}
            blocks.append(block)
        sent = {**message, "content": blocks or blocks_of(message)}
        self._sent[index] = (gone, sent)
        return sent

    def prepare(self, now: float) -> Turn:
        """The request at the newest message, and its breakpoints' frontiers (summary, stable, previous)."""
        call = len(self.messages) - 1
        rewrites = self.plan.rewrites
        at = bisect_right(rewrites, call)  # rewrites[at - 1] <= call < rewrites[at]
        rewrite = rewrites[at - 1] if at else call
        followed, before = self._last
        # no rewrite since the last request: it extends that one (only the new messages are rendered)
        kept = before if followed == rewrite else []
        request = [*kept, *(self._rendered(i, rewrite) for i in range(len(kept), call + 1))]
        self._last = (rewrite, request)
        coming = rewrites[at] if at < len(rewrites) else None
        frontier = self.plan.starts[coming] - 1 if coming is not None else None
        if frontier is not None and not 0 <= frontier < call:
            frontier = None
        previous = self.plan.starts[call] - 1 if call in self.plan.starts else None
        if previous is not None and (frontier is None or frontier <= previous):
            frontier, previous = previous, None  # this rewrite reads up to where it starts
        return Turn(request, request, [], (None, frontier, previous))

    def after_call(self, tokens: int, now: float, cache_ttl: str = "", output_tokens: float = 0.0) -> None:
        """Nothing to learn: the plan knew."""


def _items_in(message: Message, index: int) -> list[Item]:
    items: list[Item] = [("result", str(b.get("tool_use_id", ""))) for b in blocks_of(message)
                         if b.get("type") == "tool_result"]
    return [*items, ("thinking", index)] if message["role"] == "assistant" else items
